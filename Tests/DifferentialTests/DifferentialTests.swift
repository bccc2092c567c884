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
        try recordIfAsked(comparison)
        if let minimum = script.minimumOracle, let oracle = comparison.oracleVersion, oracle < minimum {
            // Checked against the recording of a newer MPD instead (`noSignalMatchesRecordedMPD024`).
            print("\(script.name): not compared with MPD \(oracle.major).\(oracle.minor), which lacks what it tests")
            #expect(DifferentialScript.recorded.contains { $0.name == script.name },
                    "\(script.name) needs MPD \(minimum.major).\(minimum.minor) and has no recording of it")
            return
        }
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

    /// Scripts about MPD 0.24 behaviour cannot be compared with Debian's MPD 0.23. For them, MPD 0.24.9's answers
    /// were recorded (`Scripts/recorded/NAME.mpd-0.24.txt`, normalised, written by `DIFF_RECORD=NAME,…` while
    /// `MPD_BIN` names an MPD 0.24) and NoSignal is compared with the recording here, with MPD 0.24's rules.
    @Test("NoSignal answers like the recorded MPD 0.24", arguments: DifferentialScript.recorded)
    func noSignalMatchesRecordedMPD024(_ script: DifferentialScript) async throws {
        try requireLoaded(script)
        let path = DifferentialScript.recordingPath(script, in: DifferentialScript.scriptsDirectory)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        guard let recorded = Transcript.recorded(text, script: script, server: .mpd) else {
            throw HarnessProblem(description: "\(path) does not fit \(script.name).mpdscript any more: record it again against MPD 0.24 (DIFF_RECORD=\(script.name) MPD_BIN=…)")
        }
        let (candidate, log) = try await DifferentialRunner.record(script, on: .nosignal)
        let comparison = DifferentialRunner.compare(script, reference: recorded, candidate: candidate)
        if !comparison.identical {
            Issue.record(Comment(rawValue: "against the recording \(path):\n\(comparison.report())\n--- NoSignal stderr ---\n\(log)"))
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

    /// `DIFF_RECORD=NAME,…`: MPD's normalised answers to those scripts become their recording, in the source tree.
    /// Only an MPD 0.24 may be recorded.
    private func recordIfAsked(_ comparison: Comparison) throws {
        guard let names = ProcessInfo.processInfo.environment["DIFF_RECORD"]?.split(separator: ","),
              names.contains(Substring(comparison.script.name)) else { return }
        guard let version = comparison.oracleVersion, version >= DifferentialScript.ProtocolVersion(major: 0, minor: 24) else {
            throw HarnessProblem(description: "DIFF_RECORD needs MPD 0.24 as the oracle (MPD_BIN=…)")
        }
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scripts").path
        let path = DifferentialScript.recordingPath(comparison.script, in: source)
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try comparison.normalizedReference.text.write(toFile: path, atomically: true, encoding: .utf8)
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

    /// The scripts with a recording of MPD 0.24's answers.
    static let recorded: [DifferentialScript] = all.filter {
        FileManager.default.fileExists(atPath: recordingPath($0, in: scriptsDirectory))
    }

    static func recordingPath(_ script: DifferentialScript, in directory: String) -> String {
        "\(directory)/recorded/\(script.name).mpd-0.24.txt"
    }

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
