import Foundation

/// What one server answered to one script: one entry per step, in script order, so that two
/// transcripts of the same script always align step by step.
public struct Transcript: Sendable {
    public struct Entry: Sendable {
        public let step: DifferentialScript.Step
        /// Rendered lines (see `Transcript.render`); markers such as `<closed>` are in angle brackets.
        public var lines: [String]

        public init(step: DifferentialScript.Step, lines: [String]) {
            self.step = step
            self.lines = lines
        }
    }

    public let server: ServerKind
    public var entries: [Entry]
    /// Unread data found on open connections when the script ended, per connection.
    public var problems: [String] = []

    public init(server: ServerKind, entries: [Entry] = []) {
        self.server = server
        self.entries = entries
    }

    /// The header line shown for a step: `#12 @2 > idle`.
    public static func header(_ step: DifferentialScript.Step) -> String {
        "#\(step.number) @\(step.connection) \(step.source)"
    }

    /// The whole transcript as text, responses indented under their step.
    public var text: String {
        var output = ""
        for entry in entries {
            output += Transcript.header(entry.step) + "\n"
            for line in entry.lines { output += "  " + line + "\n" }
        }
        for problem in problems { output += "! " + problem + "\n" }
        return output
    }

    /// Renders raw response bytes as one readable line: valid UTF-8 stays as it is, control bytes,
    /// DEL and bytes that are not valid UTF-8 become `\xNN` (`\t` and `\r` are kept readable).
    public static func render(_ bytes: [UInt8]) -> String {
        var output = ""
        var index = 0
        func escape(_ byte: UInt8) {
            switch byte {
            case 0x09: output += "\\t"
            case 0x0D: output += "\\r"
            default:
                let hex = String(byte, radix: 16)
                output += "\\x" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte < 0x20 || byte == 0x7F {
                escape(byte)
                index += 1
                continue
            }
            if byte < 0x80 {
                output.unicodeScalars.append(Unicode.Scalar(byte))
                index += 1
                continue
            }
            let length: Int
            switch byte {
            case 0xC2...0xDF: length = 2
            case 0xE0...0xEF: length = 3
            case 0xF0...0xF4: length = 4
            default: length = 0
            }
            if length > 0, index + length <= bytes.count {
                let sequence = Array(bytes[index..<(index + length)])
                var decoder = UTF8()
                var iterator = sequence.makeIterator()
                if case .scalarValue(let scalar) = decoder.decode(&iterator),
                   String(scalar).utf8.count == length {
                    output.unicodeScalars.append(scalar)
                    index += length
                    continue
                }
            }
            escape(byte)
            index += 1
        }
        return output
    }
}

/// Replaces the volatile values — and only those — so that two correct servers give equal text.
public struct TranscriptNormalizer {
    private var songIds: [String: Int] = [:]
    private var jobIds: [String: Int] = [:]
    private var previousLine = ""

    public init() {}

    /// Keys whose value is replaced by a fixed marker.
    static let volatileKeys: Set<String> = ["uptime", "playtime", "db_update", "elapsed", "time", "Added"]
    /// Keys whose value is a song id, renumbered by first appearance.
    static let songIdKeys: Set<String> = ["Id", "songid", "nextsongid"]

    public mutating func normalize(_ transcript: Transcript) -> Transcript {
        var result = transcript
        for index in result.entries.indices {
            result.entries[index].lines = result.entries[index].lines.map { normalize(line: $0) }
        }
        return result
    }

    /// Replaces every `${id:N}` in a request by the song id that this transcript shows as
    /// `<id N>` (the N-th distinct id seen in `Id:`, `songid:` or `nextsongid:` lines so far), so
    /// that scripts address queue entries without assuming how a server allocates ids. Nil if an
    /// N is unknown.
    public func resolveSongIds(in bytes: [UInt8]) -> [UInt8]? {
        let marker = Array("${id:".utf8)
        guard bytes.count >= marker.count else { return bytes }
        var result: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if bytes[index] == marker[0], index + marker.count <= bytes.count,
               Array(bytes[index..<(index + marker.count)]) == marker,
               let close = bytes[(index + marker.count)...].firstIndex(of: UInt8(ascii: "}")),
               let number = Int(String(decoding: bytes[(index + marker.count)..<close], as: UTF8.self)) {
                guard let value = songIds.first(where: { $0.value == number })?.key else { return nil }
                result += Array(value.utf8)
                index = close + 1
                continue
            }
            result.append(bytes[index])
            index += 1
        }
        return result
    }

    public mutating func normalize(line: String) -> String {
        let previous = previousLine
        previousLine = line
        if line.hasPrefix("OK MPD ") { return "OK MPD <version>" }
        // A stored playlist's `Last-Modified:` is the time the script saved it (the library's own
        // files, directories and `.m3u` files in folders have fixed times, see TestLibrary; their
        // names contain a `/`, stored playlists' names never do).
        if previous.hasPrefix("playlist: ") && !previous.contains("/") && line.hasPrefix("Last-Modified: ") {
            return "Last-Modified: <playlist mtime>"
        }
        guard let colon = line.firstIndex(of: ":"), line[colon...].hasPrefix(": ") else { return line }
        let key = String(line[..<colon])
        let value = String(line[line.index(colon, offsetBy: 2)...])
        if TranscriptNormalizer.volatileKeys.contains(key) {
            return "\(key): <\(key)>"
        }
        if TranscriptNormalizer.songIdKeys.contains(key) {
            let number = songIds[value] ?? (songIds.count + 1)
            songIds[value] = number
            return "\(key): <id \(number)>"
        }
        if key == "updating_db" {
            let number = jobIds[value] ?? (jobIds.count + 1)
            jobIds[value] = number
            return "\(key): <job \(number)>"
        }
        return line
    }
}

extension Transcript {
    /// A transcript written by `text` (a recording of a server's normalised answers), read back against the script
    /// it was recorded with: one entry per step, in order. Nil when the recording does not fit the script (steps
    /// added, removed or reworded since): it must then be recorded again.
    public static func recorded(_ text: String, script: DifferentialScript, server: ServerKind) -> Transcript? {
        var blocks: [(header: String, lines: [String])] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("#") {
                blocks.append((String(line), []))
            } else if line.hasPrefix("  "), !blocks.isEmpty {
                blocks[blocks.count - 1].lines.append(String(line.dropFirst(2)))
            } else if !line.isEmpty {
                return nil
            }
        }
        guard blocks.count == script.steps.count,
              zip(blocks, script.steps).allSatisfy({ $0.header == Transcript.header($1) }) else { return nil }
        return Transcript(server: server, entries: zip(script.steps, blocks).map { Entry(step: $0, lines: $1.lines) })
    }
}
