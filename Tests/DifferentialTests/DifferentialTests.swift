import Foundation
import MPDTesting
import Testing

/// The differential tests: every `Scripts/*.mpdscript` is played against a fresh real MPD (the
/// oracle) and a fresh NoSignal, and the normalised transcripts must be identical except for the
/// deliberate differences the script declares. See `Scripts/README.md` for the format and the
/// environment variables (`DIFF_SCRIPT`, `DIFF_ONLY_MPD`, `DIFF_OUT`, …).
@Suite("Differential: NoSignal against MPD")
struct DifferentialTests {
    @Test("NoSignal answers like MPD", arguments: DifferentialScript.all)
    func noSignalMatchesMPD(_ script: DifferentialScript) async throws {
        try requireLoaded(script)
        try requireMPD()
        if ProcessInfo.processInfo.environment["DIFF_ONLY_MPD"] == "1" {
            let (transcript, _) = try await DifferentialRunner.record(script, on: .mpd)
            print("=== \(script.name): MPD transcript ===\n\(transcript.text)")
            return
        }
        let comparison = try await DifferentialRunner.compare(script, reference: .mpd, candidate: .nosignal)
        if !comparison.notes.isEmpty {
            print("\(script.name) notes:\n" + comparison.notes.map { "  - \($0)" }.joined(separator: "\n"))
        }
        if !comparison.identical {
            Issue.record(Comment(rawValue: """
                \(comparison.report())
                --- NoSignal stderr (last lines) ---
                \(comparison.candidateLog)
                """))
        }
    }

    /// The harness must not see differences between two instances of MPD itself: this checks
    /// that the normalisation covers every volatile value and that the scripts are deterministic.
    @Test("Harness self-test: MPD against a second MPD", arguments: DifferentialScript.all)
    func mpdMatchesMPD(_ script: DifferentialScript) async throws {
        try requireLoaded(script)
        try requireMPD()
        let comparison = try await DifferentialRunner.compare(script, reference: .mpd, candidate: .mpd)
        if !comparison.identical {
            Issue.record(Comment(rawValue: comparison.report()))
        }
        // A script that never gets past the greeting proves nothing.
        let answered = comparison.reference.entries.contains { $0.lines.contains { $0 == "OK" || $0.hasPrefix("ACK ") } }
        #expect(answered, "\(script.name): MPD never answered (no OK, no ACK); the script or the harness is broken")
    }

    @Test("The Scripts folder has scripts")
    func scriptsExist() {
        #expect(!DifferentialScript.all.isEmpty, "no *.mpdscript found in \(DifferentialScript.scriptsDirectory)")
    }

    private func requireLoaded(_ script: DifferentialScript) throws {
        if let error = script.loadError {
            throw HarnessProblem(description: "script \(script.name) does not parse: \(error)")
        }
    }

    private func requireMPD() throws {
        if ServerProcess.mpdExecutable() == nil {
            throw HarnessProblem(description: "MPD is not installed: the differential tests need Debian's mpd 0.23 as their oracle (apt-get install -y mpd), or MPD_BIN=/path/to/mpd")
        }
    }
}

/// A problem that makes a test case fail before any comparison (Swift Testing records it).
private struct HarnessProblem: Error, CustomStringConvertible {
    let description: String
}

extension DifferentialScript {
    /// Every script, sorted by name (`DIFF_SCRIPT=a,b` to run only some).
    static let all: [DifferentialScript] = loadAll(directory: scriptsDirectory)

    /// `DIFF_SCRIPTS_DIR`, else the `Scripts` resource, else the source folder next to this file.
    static var scriptsDirectory: String {
        if let explicit = ProcessInfo.processInfo.environment["DIFF_SCRIPTS_DIR"], !explicit.isEmpty {
            return explicit
        }
        if let url = Bundle.module.url(forResource: "Scripts", withExtension: nil) {
            return url.path
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scripts").path
    }
}
