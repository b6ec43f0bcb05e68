import Dispatch
import Foundation

/// Gives the memory a long-running server freed back to the system. glibc keeps what each
/// thread's arena freed for reuse: after a flood of requests with heads of 60 KB, `httpc serve`
/// stayed at 500-850 MB resident with about 5 MB in use, until `malloc_trim` returned it (37 MB).
enum FreedMemory {
    /// Calls glibc's `malloc_trim(0)` every `seconds` on a queue of its own; `nil` where there is
    /// no such function (Apple platforms, musl), whose allocators return memory themselves.
    static func givenBackEvery(seconds: Int) -> (any DispatchSourceTimer)? {
        #if os(Linux)
        // Looked up by name: the Glibc module does not declare it (it lives in <malloc.h>).
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return nil }
        let trim = unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "httpc serve memory", qos: .utility))
        timer.schedule(deadline: .now() + .seconds(seconds), repeating: .seconds(seconds), leeway: .seconds(1))
        timer.setEventHandler { _ = trim(0) }
        timer.resume()
        return timer
        #else
        return nil
        #endif
    }
}
