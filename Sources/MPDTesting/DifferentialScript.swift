import Foundation

// Differential scripts (`*.mpdscript`)
// ====================================
//
// A script is a conversation with an MPD server, written the way it goes over the wire. The
// runner plays it against real MPD and against NoSignal, records one transcript per server,
// normalises the few truly volatile values and requires the transcripts to be identical.
//
// Lines are trimmed; blank lines and lines starting with `#` are ignored (comments are whole
// lines only, since `#` is a valid argument character).
//
// Header directives (`%`, anywhere; they apply from where they stand):
//
//     %config password "secret@read"     extra config line for both servers (MPD syntax)
//     %config-mpd LINE                   ... for MPD only
//     %config-nosignal LINE              ... for NoSignal only
//                                        (`${dir}` in a config line is the server's temp dir)
//     %library [NAME] [private]          both servers scan the generated test library NAME
//                                        (default `standard`; Tests/Support/make_library.sh) as
//                                        their music_directory; the script starts after the
//                                        initial scan (see TestLibrary.swift). `private`: each
//                                        server gets its own copy, which `!sh` may change
//     %ignore reason: TEXT               do not compare the response of the NEXT step
//     %substitute NAME SIDE "REGEX" => "REPLACEMENT" reason: TEXT
//     %substitute NAME SIDE "REGEX" => delete reason: TEXT
//                                        from here to the end of the script, every response
//                                        line of SIDE (mpd, nosignal or both) that matches
//                                        REGEX as a whole is replaced ($1… refer to groups)
//                                        or deleted before comparing
//
// `%ignore` and `%substitute` are the deliberate differences: each needs a non-empty `reason:`
// saying why NoSignal is allowed to answer differently. Inside their quoted strings only `\"`
// is an escape (a quote); every other backslash goes to the regular expression unchanged.
//
// Steps (one per line, numbered #1, #2, … in transcripts and reports). Every step may start
// with `@N ` to choose connection N (default 1). A connection opens on first use, recording
// the greeting; a send on a connection the server has closed (a read saw EOF) reconnects and
// records `<reconnected>` and the new greeting.
//
//     status                 plain request: send the line plus "\n", read one response
//     > idle                 send only, do not read (the response stays pending)
//     <                      read one pending response
//     "ping\r\n"             raw bytes (no newline is added), then read one response
//     > "pi"                 raw bytes, send only
//     "x"*9000 "\n"          raw pieces are concatenated; `*N` repeats a piece
//     !closed                expect the server to close: records any data, then `<closed>`
//                            (or `<still open>` after the timeout)
//     !silence 200           expect no bytes for 200 ms: records `<silence>` or what came
//     !sleep 100             pause 100 ms (all connections)
//     !connect               open connection N afresh (closing the old one), record greeting
//     !disconnect            the client closes connection N
//     !wait-update           poll `status` on a separate connection until no `updating_db:`
//                            is left (`update --wait`); records `<update done>`
//     !sh COMMAND            run `/bin/sh -c COMMAND` in the server's music directory (only
//                            with `%library … private`); records `<sh ok>` or the failure
//
// `${id:N}` in a plain or raw step stands for the song id that the transcripts show as `<id N>`
// (the N-th distinct id seen so far in `Id:`/`songid:`/`nextsongid:` lines of this server), so a
// script can say `deleteid ${id:3}` without assuming how ids are allocated.
//
// Raw escapes: `\n \r \t \0 \\ \"` and `\xHH`. A plain line is sent exactly as written after
// trimming, so MPD quoting (`"a \"b\""`) needs no extra escaping; anything starting with
// `"`, `<`, `>`, `!`, `%`, `@` or `#`, or with leading/trailing blanks, must be sent raw.
//
// Command lists are tracked per connection: after a plain `command_list_begin` or
// `command_list_ok_begin` line, plain lines and raw sends are sent without reading until the
// plain `command_list_end`, which reads the list's response. Raw bytes never open or close a
// list for this tracking, even if they contain `command_list_begin`.
//
// A response is read until a line `OK`, a line starting with `ACK `, EOF (`<closed>`) or the
// read timeout (`<timeout>`); `binary: N` chunks are read by length and shown as a digest.
// At the end of the script every open connection is checked for unread data. After three
// timeouts in a row the remaining steps are skipped (a server that stopped answering), and a
// script is cut off after DIFF_SCRIPT_TIMEOUT seconds (45 by default).
//
// Normalised before comparing (and nothing else): the greeting's version, the values of
// `uptime:`, `playtime:`, `db_update:`, `elapsed:` and `time:`, `updating_db:` job ids, and
// song ids (`Id:`, `songid:`, `nextsongid:`), renumbered by first appearance.

/// A parsed `.mpdscript` file. See the comment at the top of this file for the format.
public struct DifferentialScript: Sendable, CustomStringConvertible {
    /// What a step does on its connection.
    public enum Action: Sendable, Equatable {
        /// Send the bytes; read one response when `read`.
        case send([UInt8], read: Bool)
        /// Read one pending response.
        case read
        /// Wait for the server to close the connection.
        case expectClose
        /// Expect no bytes for the given milliseconds.
        case silence(milliseconds: Int)
        /// Pause.
        case sleep(milliseconds: Int)
        /// Open the connection afresh.
        case connect
        /// Close the connection from the client side.
        case disconnect
        /// Poll `status` (on a separate connection) until no database update runs.
        case waitUpdate
        /// Run a shell command in the server's (private) music directory.
        case shell(String)
    }

    public struct Step: Sendable {
        /// 1-based, as shown in transcripts.
        public let number: Int
        /// Line in the script file.
        public let line: Int
        /// Connection number (1 unless `@N`).
        public let connection: Int
        public let action: Action
        /// The step as written, without the `@N ` prefix.
        public let source: String
        /// Set by `%ignore`: the response is not compared, for this reason.
        public let ignoreReason: String?
        /// Set when the `%ignore` stood under `%oracle-below`: it applies only to an oracle older than this.
        public var ignoreOracleBelow: ProtocolVersion? = nil
    }

    /// A protocol version as MPD's greeting names it (major, minor).
    public struct ProtocolVersion: Sendable, Equatable, Comparable {
        public let major: Int
        public let minor: Int

        public init(major: Int, minor: Int) {
            self.major = major
            self.minor = minor
        }

        /// `0.24` or `0.23.5`; nil for anything else.
        public init?(_ text: some StringProtocol) {
            let parts = text.split(separator: ".").map { Int($0) }
            guard parts.count >= 2, let major = parts[0], let minor = parts[1] else { return nil }
            self.init(major: major, minor: minor)
        }

        public static func < (a: Self, b: Self) -> Bool { (a.major, a.minor) < (b.major, b.minor) }
    }

    public enum Side: String, Sendable {
        case mpd, nosignal, both
    }

    /// A `%substitute` directive.
    public struct Substitution: Sendable {
        public let name: String
        public let side: Side
        public let pattern: String
        /// Nil deletes the matching line.
        public let replacement: String?
        public let reason: String
        /// Applies to steps with a number at least this.
        public let firstStep: Int
        public let line: Int
        /// Set under `%oracle-below`: the declaration applies only when the oracle's greeting names an older
        /// protocol than this.
        public var oracleBelow: ProtocolVersion?
        /// The declarations file it came from (nil: the script itself).
        public var file: String?
    }

    public struct ParseError: Error, CustomStringConvertible {
        public let line: Int
        public let message: String
        public var description: String { "line \(line): \(message)" }
    }

    public let name: String
    public let path: String?
    /// Extra config lines: for both servers, MPD only, NoSignal only.
    public var config: [String] = []
    public var mpdConfig: [String] = []
    public var nosignalConfig: [String] = []
    /// `%library NAME`: the generated test library both servers use as their music directory.
    public var library: String?
    /// `%library NAME private`: each server scans its own copy of it.
    public var libraryIsPrivate = false
    public var steps: [Step] = []
    public var substitutions: [Substitution] = []
    /// `%needs-oracle 0.24`: the script is about behaviour an older MPD lacks; compared with an older oracle it
    /// proves nothing (a recording of the newer MPD's answers stands in, see `Scripts/recorded`).
    public var minimumOracle: ProtocolVersion?
    /// Set when the file could not be read or parsed; the test reports it as a failure.
    public var loadError: String?

    public var description: String { name }

    /// The extra configuration lines for one server.
    public func configLines(for kind: ServerKind) -> [String] {
        config + (kind == .mpd ? mpdConfig : nosignalConfig)
    }

    public init(name: String, path: String? = nil, loadError: String) {
        self.name = name
        self.path = path
        self.loadError = loadError
    }

    /// Parses a script; throws `ParseError` naming the line.
    public init(name: String, path: String? = nil, text: String) throws {
        self.name = name
        self.path = path
        var parser = Parser()
        try parser.parse(text, into: &self)
    }

    /// Reads and parses one file; a failure becomes `loadError` so that the test can report it.
    public static func load(path: String) -> DifferentialScript {
        let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        guard let data = FileManager.default.contents(atPath: path) else {
            return DifferentialScript(name: name, path: path, loadError: "cannot read \(path)")
        }
        do {
            return try DifferentialScript(name: name, path: path, text: String(decoding: data, as: UTF8.self))
        } catch {
            return DifferentialScript(name: name, path: path, loadError: "\(path): \(error)")
        }
    }

    /// Every `*.mpdscript` in `directory`, sorted by name, each with the declarations of every `*.mpddecl` file
    /// there added to its own. `DIFF_SCRIPT=a,b` keeps only those names.
    public static func loadAll(directory: String) -> [DifferentialScript] {
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
        let only = ProcessInfo.processInfo.environment["DIFF_SCRIPT"].map {
            Set($0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        }
        var shared: [Substitution] = []
        var sharedError: String?
        for file in files where file.hasSuffix(".mpddecl") {
            do {
                shared += try declarations(path: directory + "/" + file)
            } catch {
                sharedError = "\(directory)/\(file): \(error)"
            }
        }
        return files.filter { $0.hasSuffix(".mpdscript") }
            .map { file in
                var script = load(path: directory + "/" + file)
                script.substitutions += shared
                if script.loadError == nil, let sharedError { script.loadError = sharedError }
                return script
            }
            .filter { only == nil || only!.contains($0.name) }
    }

    /// The `%substitute` lines of a declarations file (`*.mpddecl`): differences every script may show. After
    /// `%oracle-below 0.24` they apply only while the oracle greets with an older protocol.
    public static func declarations(path: String) throws -> [Substitution] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ParseError(line: 0, message: "cannot read \(path)")
        }
        var parser = Parser()
        var result: [Substitution] = []
        for (index, rawLine) in String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces.union(CharacterSet(charactersIn: "\r")))
            if line.isEmpty || line.hasPrefix("#") { continue }
            let (word, rest) = parser.splitWord(line)
            switch word {
            case "%oracle-below":
                try parser.parseOracleBelow(rest, number: index + 1)
            case "%substitute":
                var substitution = try parser.parseSubstitution(rest, number: index + 1, firstStep: 1)
                substitution.file = URL(fileURLWithPath: path).lastPathComponent
                result.append(substitution)
            default:
                throw ParseError(line: index + 1, message: "a declarations file holds only %oracle-below and %substitute")
            }
        }
        return result
    }
}

// MARK: - Parser

private struct Parser {
    var pendingIgnore: (reason: String, line: Int, oracleBelow: DifferentialScript.ProtocolVersion?)?
    /// `%oracle-below 0.24` … `%oracle-below any`: the deliberate differences declared meanwhile are MPD 0.24
    /// behaviour, hidden only from an older oracle.
    var oracleBelow: DifferentialScript.ProtocolVersion?

    mutating func parseOracleBelow(_ text: String, number: Int) throws {
        if text == "any" {
            oracleBelow = nil
            return
        }
        guard let version = DifferentialScript.ProtocolVersion(text), !text.contains(" ") else {
            throw DifferentialScript.ParseError(line: number, message: "%oracle-below needs a protocol version such as 0.24, or any")
        }
        oracleBelow = version
    }
    var inCommandList: [Int: Bool] = [:]

    mutating func parse(_ text: String, into script: inout DifferentialScript) throws {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        for (index, rawLine) in lines.enumerated() {
            let number = index + 1
            let line = rawLine.trimmingCharacters(in: .whitespaces.union(CharacterSet(charactersIn: "\r")))
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("%") {
                try directive(line, number: number, script: &script)
            } else {
                try step(line, number: number, script: &script)
            }
        }
        if let pendingIgnore {
            throw DifferentialScript.ParseError(line: pendingIgnore.line, message: "%ignore is not followed by a step")
        }
    }

    mutating func directive(_ line: String, number: Int, script: inout DifferentialScript) throws {
        let (word, rest) = splitWord(line)
        func fail(_ message: String) -> DifferentialScript.ParseError {
            DifferentialScript.ParseError(line: number, message: message)
        }
        switch word {
        case "%config", "%config-mpd", "%config-nosignal":
            guard !rest.isEmpty else { throw fail("\(word) needs a configuration line") }
            if word == "%config" { script.config.append(rest) }
            if word == "%config-mpd" { script.mpdConfig.append(rest) }
            if word == "%config-nosignal" { script.nosignalConfig.append(rest) }
        case "%library":
            var words = rest.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            if words.last == "private" {
                script.libraryIsPrivate = true
                words.removeLast()
            }
            guard words.count <= 1 else { throw fail("%library takes a name and `private`") }
            let name = words.first ?? "standard"
            guard TestLibrary.names.contains(name) else { throw fail("unknown library \"\(name)\" (known: \(TestLibrary.names.sorted().joined(separator: ", ")))") }
            script.library = name
        case "%ignore":
            let reason = try parseReason(rest, number: number)
            guard pendingIgnore == nil else { throw fail("two %ignore for one step") }
            pendingIgnore = (reason, number, oracleBelow)
        case "%substitute":
            try script.substitutions.append(parseSubstitution(rest, number: number, firstStep: script.steps.count + 1))
        case "%oracle-below":
            try parseOracleBelow(rest, number: number)
        case "%needs-oracle":
            guard let version = DifferentialScript.ProtocolVersion(rest), !rest.contains(" ") else {
                throw fail("%needs-oracle needs a protocol version such as 0.24")
            }
            script.minimumOracle = version
        default:
            throw fail("unknown directive \(word) (expected %config, %config-mpd, %config-nosignal, %library, %ignore, %substitute, %oracle-below, %needs-oracle)")
        }
    }

    func parseReason(_ text: String, number: Int) throws -> String {
        guard text.hasPrefix("reason:") else {
            throw DifferentialScript.ParseError(line: number, message: "a deliberate difference needs `reason: TEXT`")
        }
        let reason = text.dropFirst("reason:".count).trimmingCharacters(in: .whitespaces)
        guard !reason.isEmpty else {
            throw DifferentialScript.ParseError(line: number, message: "the reason must not be empty")
        }
        return reason
    }

    func parseSubstitution(_ text: String, number: Int, firstStep: Int) throws -> DifferentialScript.Substitution {
        func fail(_ message: String) -> DifferentialScript.ParseError {
            DifferentialScript.ParseError(line: number, message: "%substitute: " + message
                + " (syntax: %substitute NAME mpd|nosignal|both \"REGEX\" => \"REPLACEMENT\"|delete reason: TEXT)")
        }
        let (name, afterName) = splitWord(text)
        guard !name.isEmpty else { throw fail("missing name") }
        let (sideWord, afterSide) = splitWord(afterName)
        guard let side = DifferentialScript.Side(rawValue: sideWord) else { throw fail("unknown side \"\(sideWord)\"") }
        var rest = Substring(afterSide)
        guard let pattern = readPatternString(&rest) else { throw fail("missing quoted REGEX") }
        rest = rest.drop { $0 == " " || $0 == "\t" }
        guard rest.hasPrefix("=>") else { throw fail("missing =>") }
        rest = rest.dropFirst(2).drop { $0 == " " || $0 == "\t" }
        let replacement: String?
        if rest.hasPrefix("delete") {
            replacement = nil
            rest = rest.dropFirst("delete".count)
        } else if let value = readPatternString(&rest) {
            replacement = value
        } else {
            throw fail("missing quoted REPLACEMENT or delete")
        }
        let reason = try parseReason(rest.trimmingCharacters(in: .whitespaces), number: number)
        do {
            _ = try NSRegularExpression(pattern: pattern)
        } catch {
            throw fail("bad regular expression \"\(pattern)\"")
        }
        return .init(name: name, side: side, pattern: pattern, replacement: replacement, reason: reason,
                     firstStep: firstStep, line: number, oracleBelow: oracleBelow)
    }

    /// `"…"` where only `\"` is an escape.
    func readPatternString(_ text: inout Substring) -> String? {
        text = text.drop { $0 == " " || $0 == "\t" }
        guard text.first == "\"" else { return nil }
        var result = ""
        var index = text.index(after: text.startIndex)
        while index < text.endIndex {
            let character = text[index]
            if character == "\\" {
                let next = text.index(after: index)
                if next < text.endIndex && text[next] == "\"" {
                    result.append("\"")
                    index = text.index(after: next)
                    continue
                }
                result.append("\\")
            } else if character == "\"" {
                text = text[text.index(after: index)...]
                return result
            } else {
                result.append(character)
            }
            index = text.index(after: index)
        }
        return nil
    }

    mutating func step(_ line: String, number: Int, script: inout DifferentialScript) throws {
        func fail(_ message: String) -> DifferentialScript.ParseError {
            DifferentialScript.ParseError(line: number, message: message)
        }
        var body = Substring(line)
        var connection = 1
        if body.hasPrefix("@") {
            let digits = body.dropFirst().prefix { $0.isASCII && $0.isNumber }
            guard let value = Int(digits), value >= 1, value <= 99 else { throw fail("@N needs a connection number 1…99") }
            connection = value
            body = body.dropFirst(1 + digits.count)
            guard body.first == " " || body.first == "\t" else { throw fail("expected a blank after @\(value)") }
            body = body.drop { $0 == " " || $0 == "\t" }
        }
        let source = String(body)
        var sendOnly = false
        if body.hasPrefix(">") {
            sendOnly = true
            body = body.dropFirst().drop { $0 == " " || $0 == "\t" }
            guard !body.isEmpty else { throw fail("`>` needs something to send") }
        }

        let action: DifferentialScript.Action
        if body == "<" {
            guard !sendOnly else { throw fail("`> <` makes no sense") }
            action = .read
        } else if body.hasPrefix("!") {
            guard !sendOnly else { throw fail("`>` cannot prefix a ! directive") }
            let (word, argument) = splitWord(String(body))
            func milliseconds() throws -> Int {
                guard let value = Int(argument), value >= 0, value <= 10_000 else {
                    throw fail("\(word) needs milliseconds (0…10000)")
                }
                return value
            }
            switch word {
            case "!closed": action = .expectClose
            case "!silence": action = .silence(milliseconds: try milliseconds())
            case "!sleep": action = .sleep(milliseconds: try milliseconds())
            case "!connect": action = .connect; inCommandList[connection] = false
            case "!disconnect": action = .disconnect; inCommandList[connection] = false
            case "!wait-update": action = .waitUpdate
            case "!sh":
                guard !argument.isEmpty else { throw fail("!sh needs a command") }
                action = .shell(argument)
            default: throw fail("unknown step \(word) (expected !closed, !silence, !sleep, !connect, !disconnect, !wait-update, !sh)")
            }
            if !argument.isEmpty, word != "!silence", word != "!sleep", word != "!sh" { throw fail("\(word) takes no argument") }
        } else if body.hasPrefix("\"") {
            let listOpen = inCommandList[connection] ?? false
            action = .send(try parseRaw(body, number: number), read: !sendOnly && !listOpen)
        } else if let first = body.first, "<%#@".contains(first) {
            throw fail("a line starting with \(first) must be sent raw (\"…\")")
        } else {
            let text = String(body)
            let listOpen = inCommandList[connection] ?? false
            var read = !sendOnly
            if listOpen {
                if text == "command_list_end" {
                    inCommandList[connection] = false
                } else {
                    read = false
                }
            } else if text == "command_list_begin" || text == "command_list_ok_begin" {
                inCommandList[connection] = true
                read = false
            }
            action = .send(Array(text.utf8) + [0x0A], read: read)
        }

        let ignore = pendingIgnore
        pendingIgnore = nil
        script.steps.append(.init(number: script.steps.count + 1, line: number, connection: connection,
                                  action: action, source: source, ignoreReason: ignore?.reason,
                                  ignoreOracleBelow: ignore?.oracleBelow))
    }

    /// `"…"` pieces with C escapes, each optionally repeated with `*N`.
    func parseRaw(_ text: Substring, number: Int) throws -> [UInt8] {
        func fail(_ message: String) -> DifferentialScript.ParseError {
            DifferentialScript.ParseError(line: number, message: "raw bytes: " + message)
        }
        let bytes = Array(text.utf8)
        var index = 0
        var result: [UInt8] = []
        func hexValue(_ byte: UInt8) -> UInt8? {
            switch byte {
            case 0x30...0x39: return byte - 0x30
            case 0x41...0x46: return byte - 0x41 + 10
            case 0x61...0x66: return byte - 0x61 + 10
            default: return nil
            }
        }
        while index < bytes.count {
            if bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1; continue }
            guard bytes[index] == 0x22 else { throw fail("expected a quoted piece at column \(index + 1)") }
            index += 1
            var piece: [UInt8] = []
            var closed = false
            while index < bytes.count {
                let byte = bytes[index]
                if byte == 0x22 { closed = true; index += 1; break }
                if byte == 0x5C {
                    guard index + 1 < bytes.count else { throw fail("dangling backslash") }
                    let escape = bytes[index + 1]
                    index += 2
                    switch escape {
                    case UInt8(ascii: "n"): piece.append(0x0A)
                    case UInt8(ascii: "r"): piece.append(0x0D)
                    case UInt8(ascii: "t"): piece.append(0x09)
                    case UInt8(ascii: "0"): piece.append(0x00)
                    case UInt8(ascii: "\\"): piece.append(0x5C)
                    case UInt8(ascii: "\""): piece.append(0x22)
                    case UInt8(ascii: "x"):
                        guard index + 1 < bytes.count, let high = hexValue(bytes[index]), let low = hexValue(bytes[index + 1]) else {
                            throw fail("\\x needs two hex digits")
                        }
                        piece.append(high << 4 | low)
                        index += 2
                    default:
                        throw fail("unknown escape \\\(Character(Unicode.Scalar(escape)))")
                    }
                    continue
                }
                piece.append(byte)
                index += 1
            }
            guard closed else { throw fail("missing closing quote") }
            var repeatCount = 1
            if index < bytes.count && bytes[index] == UInt8(ascii: "*") {
                index += 1
                let start = index
                while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
                guard let count = Int(String(decoding: bytes[start..<index], as: UTF8.self)), count >= 0, count <= 10_000_000 else {
                    throw fail("*N needs a count")
                }
                repeatCount = count
            }
            for _ in 0..<repeatCount { result += piece }
        }
        return result
    }

    func splitWord(_ text: String) -> (String, String) {
        guard let space = text.firstIndex(where: { $0 == " " || $0 == "\t" }) else { return (text, "") }
        return (String(text[..<space]), text[space...].trimmingCharacters(in: .whitespaces))
    }
}
