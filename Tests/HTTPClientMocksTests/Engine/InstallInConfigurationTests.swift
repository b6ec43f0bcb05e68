import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

/// What StubbingAndVerification.md says of `install(in:)` and `urlProtocolClass`.
@Suite("Installing a registry in a configuration")
struct InstallInConfigurationTests {
    @Test func installPutsAClassMadeForTheConfigurationNotTheFixedOne() throws {
        let stubs = StubRegistry(reporting: .disabled)
        let patient = URLSessionConfiguration.ephemeral
        patient.timeoutIntervalForRequest = 60
        let hurried = URLSessionConfiguration.ephemeral
        hurried.timeoutIntervalForRequest = 1
        stubs.install(in: patient)
        stubs.install(in: hurried)
        let forPatient = ObjectIdentifier(try #require(patient.protocolClasses?.first))
        let forHurried = ObjectIdentifier(try #require(hurried.protocolClasses?.first))
        #expect(forPatient != forHurried)
        #expect(forPatient != ObjectIdentifier(stubs.urlProtocolClass))
        #expect(forHurried != ObjectIdentifier(stubs.urlProtocolClass))
    }

}
