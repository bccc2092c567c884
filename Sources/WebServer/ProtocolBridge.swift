import MPDProtocol
import MPDServer

/// Runs MPD commands for the HTTP server through the protocol server's own `Session`, so that the page and the API
/// see exactly what an MPD client sees (the same answers, errors, permissions and side effects) and nothing in here
/// re-implements a command. Each request gets a session of its own with the permissions its credentials give.
public struct ProtocolBridge: Sendable {
    let server: ServerContext

    public init(server: ServerContext) {
        self.server = server
    }

    /// An answer: its `key: value` lines in order, or MPD's error.
    public struct Answer: Sendable {
        public var pairs: [(key: String, value: String)]
        /// A `binary: N` payload (`albumart`, `readpicture`).
        public var binary: [UInt8]?

        public func first(_ key: String) -> String? { pairs.first { $0.key == key }?.value }
    }

    public struct Failure: Error, Sendable, Equatable {
        /// MPD's ACK code (`ACKError.Code` raw value), e.g. 4 for a missing permission, 50 for no such song.
        public var code: Int
        public var message: String
    }

    /// Runs one command line (as a client would send it, without the newline) and parses the answer.
    public func run(_ line: String, permission: Permission) async throws(Failure) -> Answer {
        let session = Session(client: ClientState(id: Self.clientID, isLocal: false, permission: permission),
                              server: server)
        let output = await session.complete(line: Array(line.utf8))
        return try Self.parse(output.bytes)
    }

    /// A song's picture as `albumart` finds it (a cover file in its folder, NetEase's album cover), else as
    /// `readpicture` does (embedded); nil when neither has one. One session reads it in large chunks.
    public func picture(uri: String, permission: Permission) async -> (data: [UInt8], type: String?)? {
        let session = Session(client: ClientState(id: Self.clientID, isLocal: false, permission: permission),
                              server: server)
        let limit = max(64, server.settings.maxOutputBufferSize - 4096)
        _ = await session.complete(line: Array("binarylimit \(limit)".utf8))
        for command in ["albumart", "readpicture"] {
            var data: [UInt8] = []
            var type: String?
            while true {
                let line = "\(command) \(Self.quote(uri)) \(data.count)"
                guard let answer = try? Self.parse(await session.complete(line: Array(line.utf8)).bytes),
                      let chunk = answer.binary, let size = answer.first("size").flatMap(Int.init) else { break }
                type = type ?? answer.first("type")
                data += chunk
                if chunk.isEmpty || data.count >= size { break }
            }
            if !data.isEmpty { return (data, type) }
        }
        return nil
    }

    /// The session's client id: outside the range the protocol server hands out, so no real client is confused with
    /// the HTTP server's sessions (which never register, never idle and hold no subscriptions).
    static let clientID = Int.max

    /// Reads an answer: `key: value` lines up to `OK`, a `binary: N` payload after its line, or `ACK [code@i] {cmd} m`.
    static func parse(_ bytes: [UInt8]) throws(Failure) -> Answer {
        var answer = Answer(pairs: [])
        var index = 0
        while index < bytes.count {
            let end = bytes[index...].firstIndex(of: 0x0A) ?? bytes.count
            let line = String(decoding: bytes[index..<end], as: UTF8.self)
            index = end + 1
            if line == "OK" { return answer }
            if line.hasPrefix("ACK ") { throw failure(line) }
            guard let colon = line.firstIndex(of: ":") else { continue }
            let key = String(line[..<colon])
            var value = line[line.index(after: colon)...]
            if value.first == " " { value = value.dropFirst() }
            if key == "binary", let count = Int(value), count >= 0, index + count <= bytes.count {
                answer.binary = Array(bytes[index..<(index + count)])
                index += count + 1
                continue
            }
            answer.pairs.append((key, String(value)))
        }
        throw Failure(code: 0, message: "no answer")
    }

    /// `ACK [50@0] {play} No such song` → code 50, message "No such song".
    static func failure(_ line: String) -> Failure {
        var code = 0
        if let open = line.firstIndex(of: "["), let at = line[open...].firstIndex(of: "@") {
            code = Int(line[line.index(after: open)..<at]) ?? 0
        }
        var message = line
        if let close = line.firstIndex(of: "}") {
            message = String(line[line.index(after: close)...].drop { $0 == " " })
        }
        return Failure(code: code, message: message)
    }

    /// Quotes an argument for a command line (`"…"` with `\` before `"` and `\`).
    public static func quote(_ argument: String) -> String {
        var quoted = "\""
        for character in argument {
            if character == "\"" || character == "\\" { quoted.append("\\") }
            quoted.append(character)
        }
        return quoted + "\""
    }
}
