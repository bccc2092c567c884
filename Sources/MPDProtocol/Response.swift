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
        bytes.append(contentsOf: ": ".utf8)
        for byte in value.utf8 { bytes.append(byte == 0x0A || byte == 0x0D ? 0x20 : byte) }
        bytes.append(0x0A)
    }

    public mutating func add(_ key: String, _ value: some BinaryInteger) { add(key, String(value)) }

    /// Appends `key: value\n` with the value's bytes as they are (they may not be UTF-8); newlines become spaces.
    public mutating func add(_ key: String, bytes value: [UInt8]) {
        bytes.append(contentsOf: key.utf8)
        bytes.append(contentsOf: ": ".utf8)
        for byte in value { bytes.append(byte == 0x0A || byte == 0x0D ? 0x20 : byte) }
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
