import Glibc

/// MPD's request-line tokenizer (`src/util/Tokenizer.cxx`, `src/command/AllCommands.cxx`), byte-oriented:
/// the protocol says UTF-8, but MPD never validates, so neither do we; arguments are decoded leniently.
public enum Tokenizer {
    /// MPD 0.24's `COMMAND_ARGV_MAX`, `2 + 2 × 35`: an argument beyond this many is `Too many arguments`
    /// (checked after the argument is read, so a malformed extra argument reports its own error first).
    public static let maximumArguments = 2 + 2 * TagName.allCases.count

    /// What to do with a line the server received (trailing whitespace already stripped).
    public enum Outcome: Equatable, Sendable {
        case request(Request)
        /// `ACK` then keep the connection.
        case error(ACKError)
    }

    /// Splits a request line into command and arguments. The caller has already checked that the line starts
    /// with a lowercase ASCII letter (otherwise MPD closes without an answer).
    public static func tokenize(_ line: some Collection<UInt8>) -> Outcome {
        if let outcome = line.withContiguousStorageIfAvailable({ tokenize(bytes: $0) }) { return outcome }
        return Array(line).withUnsafeBufferPointer { tokenize(bytes: $0) }
    }

    /// `tokenize` of bytes in place (a line of the connection's input or of a command list, not copied).
    public static func tokenize(bytes: UnsafeBufferPointer<UInt8>) -> Outcome {
        tokenize(bytes: bytes) { String(decoding: $0, as: UTF8.self) }
    }

    /// `tokenize(bytes:)` with the command name made by `makeName` from its bytes (ASCII letters, digits and `_`):
    /// a server hands out the names of the commands it knows, made once, instead of decoding and validating the same
    /// word on every request.
    public static func tokenize(bytes: UnsafeBufferPointer<UInt8>,
                                name makeName: (UnsafeBufferPointer<UInt8>) -> String) -> Outcome {
        var index = 0

        // The command word: [A-Za-z][A-Za-z0-9_]*, ended by whitespace.
        guard index < bytes.count else {
            return .error(ACKError(.unknown, "No command given", closesConnection: true))
        }
        guard isAlpha(bytes[index]) else {
            return .error(ACKError(.unknown, "Letter expected", closesConnection: true))
        }
        index += 1
        while index < bytes.count, !isWhitespace(bytes[index]) {
            guard isAlphaNumeric(bytes[index]) || bytes[index] == UInt8(ascii: "_") else {
                return .error(ACKError(.unknown, "Invalid word character", closesConnection: true))
            }
            index += 1
        }
        let name = makeName(UnsafeBufferPointer(rebasing: bytes[0..<index]))
        skipWhitespace(bytes, &index)

        var arguments: [[UInt8]] = []
        while index < bytes.count {
            let argument: [UInt8]
            if bytes[index] == UInt8(ascii: "\"") {
                // Quoted: a backslash escapes the next byte, whatever it is.
                index += 1
                var value: [UInt8] = []
                while true {
                    guard index < bytes.count else { return .error(ACKError(.unknown, "Missing closing '\"'")) }
                    var byte = bytes[index]
                    if byte == UInt8(ascii: "\"") { break }
                    if byte == UInt8(ascii: "\\") {
                        index += 1
                        guard index < bytes.count else {
                            return .error(ACKError(.unknown, "Missing closing '\"'"))
                        }
                        byte = bytes[index]
                    }
                    value.append(byte)
                    index += 1
                }
                index += 1
                if index < bytes.count, !isWhitespace(bytes[index]) {
                    return .error(ACKError(.unknown, "Space expected after closing '\"'"))
                }
                argument = value
            } else {
                let start = index
                while index < bytes.count, !isWhitespace(bytes[index]) {
                    guard isUnquoted(bytes[index]) else {
                        return .error(ACKError(.unknown, "Invalid unquoted character"))
                    }
                    index += 1
                }
                argument = Array(bytes[start..<index])
            }
            guard arguments.count < maximumArguments else { return .error(ACKError(.arg, "Too many arguments")) }
            arguments.append(argument)
            skipWhitespace(bytes, &index)
        }
        return .request(Request(command: name, rawArguments: arguments))
    }

    /// How much of a received line MPD reads: every byte ≤ 0x20 stripped from its end (so CRLF works), then up to
    /// a NUL byte (it reads the line as a C string).
    public static func meaningfulLength(of line: UnsafeBufferPointer<UInt8>) -> Int {
        var end = line.count
        while end > 0, line[end - 1] <= 0x20 { end -= 1 }
        if end > 0, let nul = memchr(line.baseAddress!, 0, end) {
            end = UnsafeRawPointer(nul) - UnsafeRawPointer(line.baseAddress!)
        }
        return end
    }

    /// MPD treats every byte ≤ 0x20 as whitespace (`IsWhitespaceFast`).
    @inline(__always) static func isWhitespace(_ byte: UInt8) -> Bool { byte <= 0x20 }
    @inline(__always) static func isAlpha(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }
    @inline(__always) static func isAlphaNumeric(_ byte: UInt8) -> Bool { isAlpha(byte) || (byte >= 0x30 && byte <= 0x39) }
    @inline(__always) static func isUnquoted(_ byte: UInt8) -> Bool {
        byte > 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "'")
    }
    static func skipWhitespace(_ bytes: UnsafeBufferPointer<UInt8>, _ index: inout Int) {
        while index < bytes.count, bytes[index] <= 0x20 { index += 1 }
    }
}

/// One tokenized request: the command name and its arguments, as the bytes the client sent and as text that keeps
/// those bytes (`ByteText`: bytes that are not UTF-8 stay distinct and are written back as they came), since MPD
/// never validates UTF-8.
public struct Request: Equatable, Sendable {
    public var command: String
    public var arguments: [String]
    public var rawArguments: [[UInt8]]

    public init(command: String, arguments: [String] = []) {
        self.command = command
        self.arguments = arguments
        self.rawArguments = arguments.map { Array($0.utf8) }
    }

    public init(command: String, rawArguments: [[UInt8]]) {
        self.command = command
        self.rawArguments = rawArguments
        self.arguments = rawArguments.map { ByteText.decode($0) }
    }

    public var count: Int { arguments.count }
    public subscript(index: Int) -> String { arguments[index] }

    /// Decodes argument `index` as `T`, with MPD's error texts.
    public func argument<T: MPDArgument>(_ type: T.Type = T.self, _ index: Int) throws(ACKError) -> T {
        try T(mpdArgument: arguments[index])
    }

    /// Decodes argument `index` if present.
    public func optionalArgument<T: MPDArgument>(_ type: T.Type = T.self, _ index: Int) throws(ACKError) -> T? {
        index < arguments.count ? try T(mpdArgument: arguments[index]) : nil
    }
}
