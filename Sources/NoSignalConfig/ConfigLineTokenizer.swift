/// Splits one line of the configuration file the way MPD's `Tokenizer` does (`src/util/Tokenizer.cxx`, used by
/// `src/config/File.cxx`). Byte-oriented, because MPD is: whitespace is any byte up to 0x20, names are ASCII.
///
/// - A name is `[A-Za-z][A-Za-z0-9_]*` and must be followed by whitespace or the end of the line.
/// - A value is always double-quoted (MPD's config reader never accepts an unquoted value); inside the quotes a
///   backslash makes the next byte literal, whatever it is, and the closing quote must be followed by whitespace
///   or the end of the line (so `"x"#comment` is an error, `"x" # comment` is fine).
struct ConfigLineTokenizer {
    enum Failure: Error, Equatable {
        case letterExpected
        case invalidNameCharacter
        case quoteExpected
        case missingClosingQuote
        case spaceExpectedAfterQuote
    }

    private let bytes: [UInt8]
    private var index: Int

    /// `line` must already be stripped on the left.
    init(_ line: ArraySlice<UInt8>) {
        bytes = Array(line)
        index = 0
    }

    var isAtEnd: Bool { index >= bytes.count }

    var current: UInt8? { isAtEnd ? nil : bytes[index] }

    /// True when nothing but a comment follows, which is what MPD accepts after a value, `{` or `}`.
    var isAtEndOrComment: Bool { isAtEnd || bytes[index] == ConfigLineTokenizer.comment }

    /// The bytes after the current one, left-stripped (used after `{`).
    func rest(skipping count: Int) -> ConfigLineTokenizer {
        let start = min(index + count, bytes.count)
        return ConfigLineTokenizer(ConfigLineTokenizer.stripLeft(bytes[start...]))
    }

    mutating func nextWord() throws(Failure) -> String? {
        guard !isAtEnd else { return nil }
        guard Self.isLetter(bytes[index]) else { throw .letterExpected }
        let start = index
        index += 1
        while index < bytes.count, !Self.isWhitespace(bytes[index]) {
            guard Self.isLetter(bytes[index]) || Self.isDigit(bytes[index]) || bytes[index] == UInt8(ascii: "_") else {
                throw .invalidNameCharacter
            }
            index += 1
        }
        let word = String(decoding: bytes[start..<index], as: UTF8.self)
        skipWhitespace()
        return word
    }

    mutating func nextString() throws(Failure) -> String? {
        guard !isAtEnd else { return nil }
        guard bytes[index] == UInt8(ascii: "\"") else { throw .quoteExpected }
        index += 1
        var value: [UInt8] = []
        while true {
            guard index < bytes.count else { throw .missingClosingQuote }
            var byte = bytes[index]
            if byte == UInt8(ascii: "\"") { break }
            if byte == UInt8(ascii: "\\") {
                index += 1
                guard index < bytes.count else { throw .missingClosingQuote }
                byte = bytes[index]
            }
            value.append(byte)
            index += 1
        }
        index += 1
        if index < bytes.count, !Self.isWhitespace(bytes[index]) { throw .spaceExpectedAfterQuote }
        skipWhitespace()
        return String(decoding: value, as: UTF8.self)
    }

    private mutating func skipWhitespace() {
        while index < bytes.count, Self.isWhitespace(bytes[index]) { index += 1 }
    }

    static let comment = UInt8(ascii: "#")

    /// MPD's `IsWhitespaceNotNull`: every control byte and the space.
    static func isWhitespace(_ byte: UInt8) -> Bool { byte != 0 && byte <= 0x20 }

    static func stripLeft(_ line: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        line.drop(while: isWhitespace)
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
