import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Plays a `DifferentialScript` against servers, records transcripts, applies the script's
/// deliberate differences and compares.
public enum DifferentialRunner {
    /// How long one read waits for a response (`DIFF_READ_TIMEOUT` seconds, default 3).
    public static let readTimeout: Double = environmentDouble("DIFF_READ_TIMEOUT") ?? 3
    /// A bound on one script's recording; later steps are skipped (`DIFF_SCRIPT_TIMEOUT`, default 45 s).
    public static let scriptTimeout: Double = environmentDouble("DIFF_SCRIPT_TIMEOUT") ?? 45
    /// How many scripts run at once across parallel tests (each runs two servers).
    static let slots = AsyncSlots(count: Int(environmentDouble("DIFF_PARALLEL") ?? 3))

    // MARK: - Whole runs

    /// Starts `reference` and `candidate` concurrently (fresh instances), records the script
    /// against both concurrently, stops them and compares.
    public static func compare(_ script: DifferentialScript, reference: ServerKind = .mpd,
                               candidate: ServerKind = .nosignal) async throws -> Comparison {
        try await slots.withSlot {
            let (first, second) = try await startPair(script, reference, candidate)
            async let recordedA = onThread { record(script, on: first) }
            async let recordedB = onThread { record(script, on: second) }
            let (transcriptA, transcriptB) = try await (recordedA, recordedB)
            var crashes: [String] = []
            for server in [first, second] {
                if let exit = server.exitDescription {
                    crashes.append("\(server.kind) \(exit) during the script; stderr:\n\(server.logTail())")
                }
            }
            async let stopA: Void = onThread { first.stop() }
            async let stopB: Void = onThread { second.stop() }
            _ = try await (stopA, stopB)
            var comparison = compare(script, reference: transcriptA, candidate: transcriptB)
            comparison.serverProblems = crashes
            comparison.referenceLog = first.logTail()
            comparison.candidateLog = second.logTail()
            comparison.writeOutputIfRequested()
            return comparison
        }
    }

    /// Records the script against one fresh server of `kind` (for looking at MPD's answers).
    public static func record(_ script: DifferentialScript, on kind: ServerKind) async throws -> (Transcript, log: String) {
        try await slots.withSlot {
            let music = try script.library.map { try TestLibrary.musicDirectory(named: $0) }
            let server = try await onThread {
                try ServerProcess.start(kind, extraConfig: script.configLines(for: kind), musicDirectory: music,
                                        copyMusic: script.libraryIsPrivate)
            }
            let transcript = try await onThread { record(script, on: server) }
            try await onThread { server.stop() }
            return (transcript, server.logTail(maxLines: 200))
        }
    }

    private static func startPair(_ script: DifferentialScript, _ a: ServerKind, _ b: ServerKind) async throws -> (ServerProcess, ServerProcess) {
        let music = try script.library.map { try TestLibrary.musicDirectory(named: $0) }
        let copy = script.libraryIsPrivate
        async let startA = onThread { Result { try ServerProcess.start(a, extraConfig: script.configLines(for: a), musicDirectory: music, copyMusic: copy) } }
        async let startB = onThread { Result { try ServerProcess.start(b, extraConfig: script.configLines(for: b), musicDirectory: music, copyMusic: copy) } }
        let (resultA, resultB) = try await (startA, startB)
        switch (resultA, resultB) {
        case (.success(let first), .success(let second)):
            return (first, second)
        case (.failure(let error), .success(let other)), (.success(let other), .failure(let error)):
            other.stop()
            throw error
        case (.failure(let error), .failure(let other)):
            throw ServerStartError(description: "\(error)\n\(other)")
        }
    }

    // MARK: - Recording (blocking)

    /// Plays the script against a running server. Blocking; every wait is bounded.
    public static func record(_ script: DifferentialScript, on server: ServerProcess) -> Transcript {
        record(script, port: server.port, kind: server.kind,
               musicDirectory: script.libraryIsPrivate ? server.musicDirectory : nil)
    }

    /// `musicDirectory` is where `!sh` steps run (a private copy of the library); nil refuses them.
    public static func record(_ script: DifferentialScript, port: UInt16, kind: ServerKind,
                              musicDirectory: String? = nil) -> Transcript {
        var transcript = Transcript(server: kind)
        var connections: [Int: RawClient] = [:]
        defer { connections.values.forEach { $0.close() } }
        let deadline = Deadline(seconds: scriptTimeout)
        // Song ids seen so far, numbered like the normaliser numbers them, for `${id:N}` in steps.
        var ids = TranscriptNormalizer()

        func open(_ number: Int, into lines: inout [String]) -> RawClient? {
            connections[number]?.close()
            connections[number] = nil
            do {
                let client = try RawClient(port: port, timeout: readTimeout)
                connections[number] = client
                if let greeting = client.readLine(timeout: readTimeout) {
                    lines.append(Transcript.render(greeting))
                } else {
                    lines.append(client.isClosed ? "<closed>" : "<timeout>")
                }
                return client
            } catch {
                lines.append("<cannot connect: \(error)>")
                return nil
            }
        }

        // A server that stopped answering would make every later step wait for the timeout.
        var timeoutsInARow = 0
        for step in script.steps {
            var lines: [String] = []
            defer {
                transcript.entries.append(.init(step: step, lines: lines))
                for line in lines { _ = ids.normalize(line: line) }
                if lines.last == "<timeout>" { timeoutsInARow += 1 } else if timeoutsInARow < 3 { timeoutsInARow = 0 }
            }
            if deadline.hasPassed {
                lines.append("<skipped: the script took longer than \(Int(scriptTimeout)) s>")
                continue
            }
            if timeoutsInARow >= 3 {
                lines.append("<skipped: three timeouts in a row>")
                continue
            }
            switch step.action {
            case .sleep(let milliseconds):
                usleep(useconds_t(milliseconds) * 1000)
            case .connect:
                _ = open(step.connection, into: &lines)
            case .disconnect:
                connections[step.connection]?.close()
                connections[step.connection] = nil
            case .waitUpdate:
                lines.append(waitForUpdate(port: port, deadline: deadline))
            case .shell(let command):
                lines.append(runShell(command, in: musicDirectory))
            case .send(let bytes, let read):
                var client = connections[step.connection]
                if client == nil {
                    client = open(step.connection, into: &lines)
                } else if client!.isClosed {
                    lines.append("<reconnected>")
                    client = open(step.connection, into: &lines)
                }
                guard let client else { continue }
                guard let resolved = ids.resolveSongIds(in: bytes) else {
                    lines.append("<unknown ${id:N} in the step: no such song id seen yet>")
                    continue
                }
                client.send(resolved)
                if read { lines += render(client.readResponse(timeout: readTimeout)) }
            case .read:
                guard let client = connections[step.connection] else {
                    lines.append("<not connected>")
                    continue
                }
                lines += render(client.readResponse(timeout: readTimeout))
            case .expectClose:
                guard let client = connections[step.connection] else {
                    lines.append("<not connected>")
                    continue
                }
                let (data, closed) = client.readAvailable(timeout: readTimeout)
                lines += data.map(Transcript.render)
                lines.append(closed ? "<closed>" : "<still open>")
            case .silence(let milliseconds):
                guard let client = connections[step.connection] else {
                    lines.append("<not connected>")
                    continue
                }
                let (data, closed) = client.readAvailable(timeout: Double(milliseconds) / 1000)
                lines += data.map(Transcript.render)
                if closed { lines.append("<closed>") } else if data.isEmpty { lines.append("<silence>") }
            }
        }

        // Anything still unread means a response the script did not expect.
        for number in connections.keys.sorted() {
            guard let client = connections[number], !client.isClosed else { continue }
            let (data, _) = client.readAvailable(timeout: 0.05)
            if !data.isEmpty {
                transcript.problems.append("@\(number) unread at the end: " + data.map(Transcript.render).joined(separator: " | "))
            }
        }
        return transcript
    }

    /// `update --wait`: polls `status` on a connection of its own (so that no script connection
    /// loses its idle state or pending events) until no `updating_db:` is left.
    static func waitForUpdate(port: UInt16, deadline: Deadline) -> String {
        guard let client = try? RawClient(port: port, timeout: readTimeout),
              client.readLine(timeout: readTimeout) != nil else { return "<cannot connect>" }
        defer { client.close() }
        while !deadline.hasPassed {
            client.send(line: "status")
            let response = client.readResponse(timeout: readTimeout)
            guard response.end == .ok else { return "<status failed: \(render(response).joined(separator: " | "))>" }
            if !response.lines.contains(where: { $0.starts(with: Array("updating_db:".utf8)) }) { return "<update done>" }
            usleep(20_000)
        }
        return "<timeout>"
    }

    /// `!sh`: runs the command in the server's private music directory; never in a shared one.
    public static func runShell(_ command: String, in directory: String?) -> String {
        guard let directory else { return "<!sh needs `%library … private`>" }
        let outcome: Subprocess.Outcome
        do {
            // `$SUPPORT` is the package's Tests/Support, for the helpers that tag files.
            outcome = try Subprocess.run(["/bin/sh", "-c", "cd -- \"$1\" || exit 1; SUPPORT=\"$3\"; eval \"$2\"", "sh",
                                          directory, command, TestLibrary.supportDirectory])
        } catch {
            return "<sh failed: \(error)>"
        }
        guard outcome.status == 0 else {
            return "<sh failed with status \(outcome.status): \(outcome.standardError.trimmingCharacters(in: .whitespacesAndNewlines))>"
        }
        return "<sh ok>"
    }

    static func render(_ response: RawClient.Response) -> [String] {
        var lines = response.lines.map(Transcript.render)
        switch response.end {
        case .ok, .ack: break
        case .closed: lines.append("<closed>")
        case .timeout: lines.append("<timeout>")
        }
        return lines
    }

    // MARK: - Comparing

    /// Normalises both transcripts, applies the deliberate differences and compares step by step.
    public static func compare(_ script: DifferentialScript, reference: Transcript, candidate: Transcript) -> Comparison {
        var normalizerA = TranscriptNormalizer()
        var normalizerB = TranscriptNormalizer()
        var a = normalizerA.normalize(reference)
        var b = normalizerB.normalize(candidate)
        var usedSubstitutions = Set<String>()
        var notes: [String] = []

        // The oracle's protocol version, from its greeting (`OK MPD 0.23.5`).
        let oracleVersion = reference.oracleVersion
        // A declaration under `%oracle-below V` holds only against an oracle older than V.
        func holds(below: DifferentialScript.ProtocolVersion?) -> Bool {
            guard let below else { return true }
            guard let oracleVersion else { return false }
            return oracleVersion < below
        }
        let active = script.substitutions.filter { holds(below: $0.oracleBelow) }
        let expressions: [(DifferentialScript.Substitution, NSRegularExpression)] = active.compactMap { substitution in
            (try? NSRegularExpression(pattern: "^(?:" + substitution.pattern + ")$")).map { (substitution, $0) }
        }
        func applies(_ side: DifferentialScript.Side, to kind: ServerKind) -> Bool {
            switch side {
            case .both: return true
            case .mpd: return kind == .mpd
            case .nosignal: return kind == .nosignal
            }
        }
        func substitute(_ transcript: inout Transcript) {
            for index in transcript.entries.indices {
                let stepNumber = transcript.entries[index].step.number
                var lines = transcript.entries[index].lines
                for (substitution, expression) in expressions
                where substitution.firstStep <= stepNumber && applies(substitution.side, to: transcript.server) {
                    lines = lines.compactMap { line in
                        let range = NSRange(line.startIndex..., in: line)
                        guard expression.firstMatch(in: line, range: range) != nil else { return line }
                        usedSubstitutions.insert(substitution.name)
                        guard let template = substitution.replacement else { return nil }
                        return expression.stringByReplacingMatches(in: line, range: range, withTemplate: template)
                    }
                }
                transcript.entries[index].lines = lines
            }
        }
        substitute(&a)
        substitute(&b)
        if reference.server != candidate.server {
            // A shared declaration (`*.mpddecl`) need not apply to every script.
            for substitution in active where substitution.file == nil && !usedSubstitutions.contains(substitution.name) {
                notes.append("substitution \(substitution.name) (line \(substitution.line)) never applied; is it still needed?")
            }
        }

        var differing: [(Transcript.Entry, Transcript.Entry)] = []
        let count = min(a.entries.count, b.entries.count)
        for index in 0..<count {
            let step = a.entries[index].step
            if let reason = step.ignoreReason, holds(below: step.ignoreOracleBelow) {
                if a.entries[index].lines == b.entries[index].lines && reference.server != candidate.server {
                    notes.append("#\(step.number) (line \(step.line)) is marked %ignore (\(reason)) but both servers answered the same")
                }
                continue
            }
            if a.entries[index].lines != b.entries[index].lines {
                differing.append((a.entries[index], b.entries[index]))
            }
        }
        let problems = a.problems.map { "\(reference.server): \($0)" } + b.problems.map { "\(candidate.server): \($0)" }
        return Comparison(script: script, reference: reference, candidate: candidate,
                          normalizedReference: a, normalizedCandidate: b,
                          differingSteps: differing, notes: notes, unreadProblems: problems)
    }

    // MARK: - Helpers

    static func environmentDouble(_ name: String) -> Double? {
        ProcessInfo.processInfo.environment[name].flatMap(Double.init)
    }
}

/// The result of comparing two transcripts of one script.
extension Transcript {
    /// The protocol version of the server's first greeting (`OK MPD 0.23.5`); nil when none was recorded.
    public var oracleVersion: DifferentialScript.ProtocolVersion? {
        entries.lazy.flatMap(\.lines).first { $0.hasPrefix("OK MPD ") }.flatMap {
            DifferentialScript.ProtocolVersion($0.dropFirst("OK MPD ".count))
        }
    }
}

public struct Comparison: Sendable {
    public let script: DifferentialScript
    public let reference: Transcript
    /// The oracle's protocol version (from its greeting).
    public var oracleVersion: DifferentialScript.ProtocolVersion? { reference.oracleVersion }
    public let candidate: Transcript
    public let normalizedReference: Transcript
    public let normalizedCandidate: Transcript
    public let differingSteps: [(Transcript.Entry, Transcript.Entry)]
    /// Deliberate differences that look stale; informational.
    public let notes: [String]
    public let unreadProblems: [String]
    /// A server that died during the script.
    public var serverProblems: [String] = []
    public var referenceLog = ""
    public var candidateLog = ""

    public var identical: Bool {
        differingSteps.isEmpty && unreadProblems.isEmpty && serverProblems.isEmpty
    }

    /// A readable account of the differences: each differing step with its script line and a
    /// line diff (`-` reference, `+` candidate), then unread data, crashes and notes.
    public func report(maxSteps: Int = 12) -> String {
        let a = reference.server.description, b = candidate.server.description
        var output = "\(script.name): "
        if identical {
            output += "\(a) and \(b) answered identically (\(script.steps.count) steps).\n"
        } else {
            output += "\(differingSteps.count) of \(script.steps.count) steps differ ('-' \(a), '+' \(b)"
            if a == b { output += " (second instance)" }
            output += "):\n"
        }
        for (entryA, entryB) in differingSteps.prefix(maxSteps) {
            let step = entryA.step
            output += "\n" + Transcript.header(step) + "    (\(script.path.map { URL(fileURLWithPath: $0).lastPathComponent } ?? script.name):\(step.line))\n"
            output += LineDiff.render(entryA.lines, entryB.lines)
        }
        if differingSteps.count > maxSteps {
            output += "\n… and \(differingSteps.count - maxSteps) more differing steps.\n"
        }
        for problem in unreadProblems { output += "\nUnread data: \(problem)\n" }
        for problem in serverProblems { output += "\nServer problem: \(problem)\n" }
        if !notes.isEmpty {
            output += "\nNotes:\n" + notes.map { "  - \($0)\n" }.joined()
        }
        return output
    }

    /// With `DIFF_OUT=DIR`, writes both raw transcripts and the report there.
    func writeOutputIfRequested() {
        guard let directory = ProcessInfo.processInfo.environment["DIFF_OUT"], !directory.isEmpty else { return }
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let suffixA = reference.server.rawValue, suffixB = candidate.server == reference.server ? candidate.server.rawValue + "2" : candidate.server.rawValue
        try? reference.text.write(toFile: "\(directory)/\(script.name).\(suffixA).txt", atomically: true, encoding: .utf8)
        try? candidate.text.write(toFile: "\(directory)/\(script.name).\(suffixB).txt", atomically: true, encoding: .utf8)
        try? report().write(toFile: "\(directory)/\(script.name).\(suffixA)-vs-\(suffixB).report.txt", atomically: true, encoding: .utf8)
    }
}

/// A small line diff (longest common subsequence) for the lines of one step.
enum LineDiff {
    static func render(_ a: [String], _ b: [String], context: Int = 3) -> String {
        // Steps are short; fall back to a plain dump of both sides for huge ones.
        guard a.count * b.count <= 4_000_000 else {
            return a.map { "- \($0)\n" }.joined() + b.map { "+ \($0)\n" }.joined()
        }
        let n = a.count, m = b.count
        var table = [[Int32]](repeating: [Int32](repeating: 0, count: m + 1), count: n + 1)
        for i in stride(from: n - 1, through: 0, by: -1) {
            for j in stride(from: m - 1, through: 0, by: -1) {
                table[i][j] = a[i] == b[j] ? table[i + 1][j + 1] + 1 : max(table[i + 1][j], table[i][j + 1])
            }
        }
        var ops: [(Character, String)] = []
        var i = 0, j = 0
        while i < n || j < m {
            if i < n, j < m, a[i] == b[j] {
                ops.append((" ", a[i])); i += 1; j += 1
            } else if i < n, j == m || table[i + 1][j] >= table[i][j + 1] {
                ops.append(("-", a[i])); i += 1
            } else {
                ops.append(("+", b[j])); j += 1
            }
        }
        // Keep changed lines plus `context` lines around them.
        var keep = [Bool](repeating: false, count: ops.count)
        for (index, op) in ops.enumerated() where op.0 != " " {
            for k in max(0, index - context)...min(ops.count - 1, index + context) { keep[k] = true }
        }
        var output = ""
        var skipped = false
        for (index, op) in ops.enumerated() {
            if keep[index] {
                output += "\(op.0) \(op.1)\n"
                skipped = false
            } else if !skipped {
                output += "  …\n"
                skipped = true
            }
        }
        return output
    }
}

// MARK: - Threads and slots

/// Runs blocking work on its own thread so the cooperative pool (two threads on a small machine)
/// never blocks on sockets, sleeps or child processes.
func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
        let thread = Thread {
            continuation.resume(with: Result { try body() })
        }
        thread.stackSize = 4 << 20
        thread.start()
    }
}

/// A counting semaphore for async code: bounds how many scripts (each two servers) run at once.
actor AsyncSlots {
    private var free: Int
    private var waiters: [CheckedContinuation<Void, Never>] = []

    init(count: Int) { free = max(1, count) }

    func withSlot<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    private func release() {
        if waiters.isEmpty {
            free += 1
        } else {
            waiters.removeFirst().resume()
        }
    }
}
