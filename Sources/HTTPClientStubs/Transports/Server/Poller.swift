// How StubServer's event loop waits for its sockets: epoll(7) with an eventfd(2) to be woken on
// Linux, kqueue(2) with an EVFILT_USER event on Apple platforms. Every difference between the two
// lives in this file (Socket.swift holds the socket calls'); CONTRIBUTING.md's platform table lists it.

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
internal import CEventPoll
import Glibc
#elseif canImport(Musl)
internal import CEventPoll
import Musl
#endif

/// What a descriptor is ready for.
struct Readiness {
    let descriptor: Int32
    /// Data (or the end of the stream, or an error) can be read.
    let readable: Bool
    /// The socket takes more bytes (or has failed).
    let writable: Bool
}

/// One event loop's wait on its descriptors: level-triggered, each descriptor registered for
/// reading, writing or both, and a wake-up another thread can ring.
// @unchecked: used by the loop's thread only, except `wake()`, one write(2) on a descriptor
// made before the loop starts.
final class Poller: @unchecked Sendable {
    private let descriptor: Int32
    #if canImport(Darwin)
    private var events: [kevent] = Array(
        repeating: kevent(ident: 0, filter: 0, flags: 0, fflags: 0, data: 0, udata: nil), count: 256)
    #else
    private let wakeDescriptor: Int32
    private var events = [epoll_event](repeating: epoll_event(), count: 256)
    #endif

    /// The system's reason when no poller can be made (the process is out of descriptors).
    init() throws(StubServerError) {
        #if canImport(Darwin)
        descriptor = kqueue()
        guard descriptor >= 0 else { throw StubServerError(.socket, host: "event loop", port: 0, errno: errno) }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        var wake = kevent(ident: 0, filter: Int16(EVFILT_USER), flags: UInt16(EV_ADD | EV_CLEAR), fflags: 0, data: 0, udata: nil)
        _ = kevent(descriptor, &wake, 1, nil, 0, nil)
        #else
        descriptor = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard descriptor >= 0 else { throw StubServerError(.socket, host: "event loop", port: 0, errno: errno) }
        wakeDescriptor = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard wakeDescriptor >= 0 else {
            let code = errno
            close(descriptor)
            throw StubServerError(.socket, host: "event loop", port: 0, errno: code)
        }
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.fd = wakeDescriptor
        _ = epoll_ctl(descriptor, EPOLL_CTL_ADD, wakeDescriptor, &event)
        #endif
    }

    /// Starts watching `socket`, or changes what it is watched for (`was` is what it was watched
    /// for until now; nothing for neither).
    func watch(_ socket: Int32, reading: Bool, writing: Bool, was: (reading: Bool, writing: Bool)?) {
        #if canImport(Darwin)
        var changes: [kevent] = []
        func change(_ filter: Int32, on: Bool, wasOn: Bool) {
            guard on != wasOn else { return }
            changes.append(
                kevent(
                    ident: UInt(socket), filter: Int16(filter), flags: UInt16(on ? EV_ADD : EV_DELETE), fflags: 0, data: 0, udata: nil))
        }
        change(EVFILT_READ, on: reading, wasOn: was?.reading ?? false)
        change(EVFILT_WRITE, on: writing, wasOn: was?.writing ?? false)
        if !changes.isEmpty { _ = kevent(descriptor, &changes, Int32(changes.count), nil, 0, nil) }
        #else
        var event = epoll_event()
        event.events = (reading ? EPOLLIN.rawValue | EPOLLRDHUP.rawValue : 0) | (writing ? EPOLLOUT.rawValue : 0)
        event.data.fd = socket
        _ = epoll_ctl(descriptor, was == nil ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, socket, &event)
        #endif
    }

    /// Stops watching `socket` (before it is closed).
    func forget(_ socket: Int32, was: (reading: Bool, writing: Bool)) {
        #if canImport(Darwin)
        watch(socket, reading: false, writing: false, was: was)
        #else
        var event = epoll_event()
        _ = epoll_ctl(descriptor, EPOLL_CTL_DEL, socket, &event)
        #endif
    }

    /// Waits until a descriptor is ready, the loop is woken or `milliseconds` pass (-1: no
    /// limit), and hands each ready descriptor to `ready`.
    func wait(milliseconds: Int32, _ ready: (Readiness) -> Void) {
        #if canImport(Darwin)
        var timeout = timespec(tv_sec: Int(milliseconds / 1000), tv_nsec: Int(milliseconds % 1000) * 1_000_000)
        let count = events.withUnsafeMutableBufferPointer { buffer in
            milliseconds < 0
                ? kevent(descriptor, nil, 0, buffer.baseAddress, Int32(buffer.count), nil)
                : kevent(descriptor, nil, 0, buffer.baseAddress, Int32(buffer.count), &timeout)
        }
        for index in 0..<max(0, Int(count)) {
            let event = events[index]
            switch Int32(event.filter) {
            case EVFILT_READ: ready(Readiness(descriptor: Int32(event.ident), readable: true, writable: false))
            case EVFILT_WRITE: ready(Readiness(descriptor: Int32(event.ident), readable: false, writable: true))
            default: break  // the wake-up
            }
        }
        #else
        let count = events.withUnsafeMutableBufferPointer { buffer in
            epoll_wait(descriptor, buffer.baseAddress, Int32(buffer.count), milliseconds)
        }
        for index in 0..<max(0, Int(count)) {
            let event = events[index]
            let socket = event.data.fd
            if socket == wakeDescriptor {
                var value: UInt64 = 0
                _ = read(wakeDescriptor, &value, 8)
                continue
            }
            let failed = event.events & (EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0
            ready(
                Readiness(
                    descriptor: socket, readable: failed || event.events & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue) != 0,
                    writable: failed || event.events & EPOLLOUT.rawValue != 0))
        }
        #endif
    }

    /// Ends the loop's current or next wait: from any thread.
    func wake() {
        #if canImport(Darwin)
        var wake = kevent(ident: 0, filter: Int16(EVFILT_USER), flags: 0, fflags: UInt32(NOTE_TRIGGER), data: 0, udata: nil)
        _ = kevent(descriptor, &wake, 1, nil, 0, nil)
        #else
        var value: UInt64 = 1
        _ = write(wakeDescriptor, &value, 8)
        #endif
    }
}
