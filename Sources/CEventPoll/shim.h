// The Linux calls StubServer's event loop needs that the Swift Glibc module leaves out: epoll(7)
// and eventfd(2). Nothing is compiled here: the module only names the system's own headers, and it
// is empty on other platforms (Apple's have kqueue in the Darwin module).
#ifdef __linux__
#include <sys/epoll.h>
#include <sys/eventfd.h>
#endif
