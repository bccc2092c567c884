/// The body of a successful answer: `key: value` lines and binary chunks, before the final `OK` or `list_OK`.
/// Bytes, not a String, because binary chunks (`albumart`, `readpicture`) are raw.
public struct Response: Sendable, Equatable {
    public private(set) var bytes: [UInt8] = []

    public init() {}

    public var isEmpty: Bool { bytes.isEmpty }

    /// Appends `key: value\n`. A newline inside a value would break the framing, so it is replaced by a space
    /// (MPD drops such values; a space keeps the line readable).
    public mutating func add(_ key: String, _ value: String) {
        bytes.append(contentsOf: key.utf8)
        bytes.append(0x3A)
        bytes.append(0x20)
        appendValue(value.utf8)
        bytes.append(0x0A)
    }

    /// Copies the value in one piece, then blanks line breaks in place: appending byte by byte (with a capacity
    /// check each) was most of the cost of large song lists.
    private mutating func appendValue(_ value: some Collection<UInt8>) {
        let start = bytes.count
        bytes.append(contentsOf: value)
        bytes.withUnsafeMutableBufferPointer { buffer in
            for index in start..<buffer.count where buffer[index] == 0x0A || buffer[index] == 0x0D {
                buffer[index] = 0x20
            }
        }
    }

    public mutating func add(_ key: String, _ value: some BinaryInteger) { add(key, String(value)) }

    /// Appends `key: value\n` with the value's bytes as they are (they may not be UTF-8); newlines become spaces.
    public mutating func add(_ key: String, bytes value: [UInt8]) {
        bytes.append(contentsOf: key.utf8)
        bytes.append(0x3A)
        bytes.append(0x20)
        appendValue(value)
        bytes.append(0x0A)
    }

    /// Appends `binary: N\n`, the raw bytes, then `\n` (`Response::WriteBinary`).
    public mutating func addBinary(_ chunk: some Collection<UInt8>) {
        add("binary", chunk.count)
        bytes.append(contentsOf: chunk)
        bytes.append(0x0A)
    }

    /// Appends a pre-formatted line (without newline).
    public mutating func addLine(_ line: String) {
        bytes.append(contentsOf: line.utf8)
        bytes.append(0x0A)
    }

    public mutating func append(_ other: Response) { bytes.append(contentsOf: other.bytes) }

    /// The text as a String, for tests.
    public var text: String { String(decoding: bytes, as: UTF8.self) }
}
