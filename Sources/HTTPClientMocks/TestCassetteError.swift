import Foundation
import HTTPClientStubs

/// Why a test could not be given a cassette of its own. Each case names the test and says what
/// to change.
public enum TestCassetteError: Error, Equatable, CustomStringConvertible, LocalizedError {
    /// `CassetteSession.current` was read outside a test that has the `.cassette()` trait.
    case noCassetteTrait
    /// `test` runs once per argument: its cases run in parallel and must not share a cassette.
    case caseNotNamed(test: String)
    /// `test` opened the cassette of case `opened` and then asked for that of `requested`.
    case secondCase(test: String, opened: String, requested: String)
    /// `test` would record into `file`, which `otherTest` records into in this run.
    case recordedByAnotherTest(file: String, test: String, otherTest: String)

    public var description: String {
        switch self {
        case .noCassetteTrait:
            "There is no cassette here: CassetteSession.current is the cassette of a test with the .cassette() trait "
                + "(@Test(.cassette()) in Swift Testing; in XCTest, call cassette() in the test)."
        case .caseNotNamed(let test):
            "\(test) runs once per argument, and its cases must not share a cassette: ask for this case's with "
                + "CassetteSession.current(case: argument), which names the file after the argument."
        case .secondCase(let test, let opened, let requested):
            "\(test) already opened the cassette of case \"\(opened)\"; it cannot open that of \"\(requested)\" too: "
                + "ask for one case's cassette per test case."
        case .recordedByAnotherTest(let file, let test, let otherTest):
            "\(file): \(test) would record into the cassette \(otherTest) records into in this run, and one would overwrite "
                + "the other's exchanges: give one of them a name of its own (.cassette(\"name\"))."
        }
    }

    public var errorDescription: String? { description }
}
