import Foundation

/// The addresses of this machine a client can connect to when `httpc serve` listens on every
/// interface (`--host 0.0.0.0` or `::`): `0.0.0.0` is an address to listen on, not one to
/// connect to (a phone given `http://0.0.0.0:8080` connects to itself).
enum InterfaceAddresses {
    /// Whether `host` is the unspecified address of its family (`0.0.0.0`, `::` in any spelling),
    /// and which family: `nil` for any other address.
    static func wildcardFamily(of host: String) -> Int32? {
        var ipv4 = in_addr()
        if inet_pton(AF_INET, host, &ipv4) == 1 { return ipv4.s_addr == 0 ? AF_INET : nil }
        var ipv6 = in6_addr()
        guard inet_pton(AF_INET6, host, &ipv6) == 1 else { return nil }
        return withUnsafeBytes(of: &ipv6) { $0.allSatisfy { $0 == 0 } } ? AF_INET6 : nil
    }

    /// The numeric addresses of the interfaces that are up, of `family` (`AF_INET`, `AF_INET6`),
    /// each once, in the system's order with loopback last. IPv6 link-local addresses
    /// (`fe80::`) are left out: a URL cannot name one without the interface it belongs to.
    static func addresses(family: Int32) -> [String] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var found: [String] = []
        var loopback: [String] = []
        for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
            let interface = entry.pointee
            // IFF_UP is 1 on every platform; its imported type differs between them.
            guard let address = interface.ifa_addr, Int32(address.pointee.sa_family) == family, interface.ifa_flags & 1 != 0
            else { continue }
            guard let text = numeric(address, family: family), !text.lowercased().hasPrefix("fe80:") else { continue }
            let isLoopback = text.hasPrefix("127.") || text == "::1"
            if !found.contains(text), !loopback.contains(text) {
                if isLoopback { loopback.append(text) } else { found.append(text) }
            }
        }
        return found + loopback
    }

    /// The URL of `port` at each address of `family`: `http://192.168.1.20:8080`, `http://[fd00::2]:8080`.
    static func urls(family: Int32, port: Int) -> [String] {
        addresses(family: family).map { family == AF_INET6 ? "http://[\($0)]:\(port)" : "http://\($0):\(port)" }
    }

    private static func numeric(_ address: UnsafeMutablePointer<sockaddr>, family: Int32) -> String? {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let written: UnsafePointer<CChar>?
        if family == AF_INET {
            var value = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            written = inet_ntop(AF_INET, &value, &text, socklen_t(text.count))
        } else {
            var value = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
            written = inet_ntop(AF_INET6, &value, &text, socklen_t(text.count))
        }
        guard written != nil else { return nil }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
