import Foundation
import ServerFuzzing
import Testing

/// The whole-server fuzzer's inputs as regression tests: the seed corpus (everything the differential scripts
/// send) and every input in `Fuzz/regressions` go through one real server over in-memory connections. A crash ends
/// the test process (a failed run); each input must finish within the fuzzer's deadline, and the server must still
/// answer afterwards.
///
/// The deadline here is longer than the fuzzer's: this test runs beside six hundred others on two cores, and a
/// deferred command's work shares the concurrency pool with them, so ten seconds of wall time was once not enough
/// for `play` in CI. A hang, the thing looked for, never ends; a minute still catches it.
@Suite(.serialized) struct ServerFuzzingTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    static let deadline: Duration = .seconds(60)

    @Test func seedsAndRegressionsRunWithoutCrashOrHang() async throws {
        let fuzzer = try await WholeServerFuzzer.make()
        let seeds = SeedCorpus.seeds(fromScriptsIn: Self.root + "/Tests/DifferentialTests/Scripts")
        #expect(seeds.count > 50)
        let folder = Self.root + "/Fuzz/regressions"
        let regressions = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
            .filter { !$0.hasSuffix(".md") }
            .map { (name: $0, bytes: [UInt8](FileManager.default.contents(atPath: folder + "/" + $0) ?? Data())) }
        #expect(regressions.count >= 3)
        for input in seeds + regressions {
            await #expect(throws: Never.self, "\(input.name)") {
                try await fuzzer.run(input.bytes, isLocal: input.bytes.count % 2 == 1, deadline: Self.deadline)
            }
            let answer = try await fuzzer.run(Array("ping\n".utf8), deadline: Self.deadline)
            #expect(String(decoding: answer, as: UTF8.self).hasSuffix("OK\n"), "after \(input.name)")
        }
        await fuzzer.stop()
    }

    /// What the absurd seeks answer: MPD's `OK` for each, then a status that says the song plays.
    @Test func absurdSeeksAreAnsweredAndPlayOn() async throws {
        let fuzzer = try await WholeServerFuzzer.make()
        let bytes = FileManager.default.contents(atPath: Self.root + "/Fuzz/regressions/seek-absurd-times")!
        let answer = String(decoding: try await fuzzer.run([UInt8](bytes), deadline: Self.deadline), as: UTF8.self)
        #expect(!answer.contains("ACK"), "\(answer)")
        #expect(answer.contains("state: play\n"), "\(answer)")
        let list = FileManager.default.contents(atPath: Self.root + "/Fuzz/regressions/long-command-list")!
        let listAnswer = String(decoding: try await fuzzer.run([UInt8](list), deadline: Self.deadline), as: UTF8.self)
        #expect(listAnswer.components(separatedBy: "list_OK\n").count - 1 == 40_000)
        await fuzzer.stop()
    }
}
