/// The body of a successful answer: `key: value` lines and binary chunks, before the final `OK` or `list_OK`.
/// Bytes, not a String, because binary chunks (`albumart`, `readpicture`) are raw.
public struct Response: Sendable, Equatable {
    public private(set) var bytes: [UInt8] = []

    public init() {}

    public var isEmpty: Bool { bytes.isEmpty }

    /// The bytes, without a copy when this is the last owner of the answer.
    public consuming func takeBytes() -> [UInt8] { bytes }

    /// Appends `key: value\n`. A newline inside a value would break the framing, so it is replaced by a space
    /// (MPD drops such values; a space keeps the line readable).
    public mutating func add(_ key: String, _ value: String) {
        // Native strings (all of ours) are read in place; `withUTF8` would copy a `var` of each first.
        let written = key.utf8.withContiguousStorageIfAvailable { key in
            value.utf8.withContiguousStorageIfAvailable { value in writeLine(key, value) } != nil
        } ?? false
        guard !written else { return }
        var key = key, value = value
        key.withUTF8 { key in value.withUTF8 { value in writeLine(key, value) } }
    }

    /// `add` of a value given as its UTF-8 bytes (a song's `PackedTags`).
    public mutating func add(_ key: String, utf8 value: UnsafeBufferPointer<UInt8>) {
        if key.utf8.withContiguousStorageIfAvailable({ writeLine($0, value) }) == nil {
            var key = key
            key.withUTF8 { writeLine($0, value) }
        }
    }

    /// `add` of a key given as its UTF-8 bytes (a tag name as a song's `PackedTags` holds it).
    public mutating func add(utf8Key key: UnsafeBufferPointer<UInt8>, utf8 value: UnsafeBufferPointer<UInt8>) {
        writeLine(key, value)
    }

    /// One bulk append per line: a song list is mostly these lines, and anything per byte or per piece (a
    /// uniqueness and capacity check each) was most of its cost. A line that fits `lineLimit` is put together on the
    /// stack and appended at once (the three appends of key, separator and value, and the newline, were a tenth of
    /// a `listallinfo`); a longer one is appended in pieces after one capacity check.
    private mutating func writeLine(_ key: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>) {
        if value.contains(where: { $0 == 0x0A || $0 == 0x0D || ByteText.needsEncoding($0) }) {
            bytes.append(contentsOf: key)
            bytes.append(contentsOf: Self.separator)
            appendSpecial(value)
            bytes.append(0x0A)
            return
        }
        let length = key.count + value.count + 3
        if length <= Self.lineLimit {
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.lineLimit) { line in
                var text = ShortText(line.baseAddress!)
                text.append(key)
                text.byte(0x3A)
                text.byte(0x20)
                text.append(value)
                text.byte(0x0A)
                bytes.append(contentsOf: UnsafeBufferPointer(start: line.baseAddress, count: text.count))
            }
            return
        }
        let needed = bytes.count + length
        if bytes.capacity < needed { bytes.reserveCapacity(Swift.max(needed, bytes.capacity * 2)) }
        bytes.append(contentsOf: key)
        bytes.append(contentsOf: Self.separator)
        bytes.append(contentsOf: value)
        bytes.append(0x0A)
    }

    /// The longest line `writeLine` puts together on the stack.
    private static let lineLimit = 256

    private static let separator: [UInt8] = [0x3A, 0x20]

    /// A value with a line break (each becomes a space) or with bytes a client sent that are not UTF-8
    /// (`ByteText`: they go back as those bytes).
    private mutating func appendSpecial(_ value: UnsafeBufferPointer<UInt8>) {
        let start = bytes.count
        var kept = false
        for byte in value {
            bytes.append(byte == 0x0A || byte == 0x0D ? 0x20 : byte)
            kept = kept || ByteText.needsEncoding(byte)
        }
        guard kept else { return }
        bytes.replaceSubrange(start..<bytes.count, with: ByteText.encode(bytes[start..<bytes.count]))
    }

    /// `add` of an `Int`, most numbers printed: the generic one below is not specialised in the modules that call
    /// it, and its type metadata lookups were a tenth of a `status` answer's work.
    public mutating func add(_ key: String, _ value: Int) {
        appendLine(key) { line in
            line.decimal(Int64(value))
            line.byte(0x0A)
        }
    }

    public mutating func add(_ key: String, _ value: some BinaryInteger) {
        if let small = Int64(exactly: value) {
            appendLine(key) { line in
                line.decimal(small)
                line.byte(0x0A)
            }
        } else {
            add(key, String(value))
        }
    }

    /// Room for `count` more bytes, for callers that know roughly how large the response gets (long song lists).
    public mutating func reserveCapacity(_ count: Int) { bytes.reserveCapacity(bytes.count + count) }

    /// `key: %Y-%m-%dT%H:%M:%SZ` in UTC (`time_print`, MPD's `Last-Modified`), written digit by digit.
    public mutating func addTime(_ key: String, unix: Int64) {
        let days = unix >= 0 ? unix / 86400 : (unix - 86399) / 86400
        let seconds = unix - days * 86400
        // Howard Hinnant's civil_from_days.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        appendLine(key) { line in
            line.decimal(year)
            line.byte(0x2D)
            line.twoDigits(month)
            line.byte(0x2D)
            line.twoDigits(day)
            line.byte(0x54)
            line.twoDigits(seconds / 3600)
            line.byte(0x3A)
            line.twoDigits(seconds / 60 % 60)
            line.byte(0x3A)
            line.twoDigits(seconds % 60)
            line.byte(0x5A)
            line.byte(0x0A)
        }
    }

    /// `key: %1.3f` of a whole number of thousandths (MPD's `duration`, `elapsed`, `Range`).
    public mutating func addThousandths(_ key: String, _ thousandths: Int64) {
        appendLine(key) { line in
            line.thousandths(thousandths)
            line.byte(0x0A)
        }
    }

    /// `key: A-B` (or `A-`) of thousandths, as `Range:` prints a queue item's sub-range.
    public mutating func addThousandthsRange(_ key: String, _ start: Int64, _ end: Int64?) {
        appendLine(key) { line in
            line.thousandths(start)
            line.byte(0x2D)
            if let end { line.thousandths(end) }
            line.byte(0x0A)
        }
    }

    private mutating func addKey(_ key: String) {
        if key.utf8.withContiguousStorageIfAvailable({ bytes.append(contentsOf: $0) }) == nil {
            bytes.append(contentsOf: key.utf8)
        }
        bytes.append(contentsOf: Self.separator)
    }

    /// `key: ` and what `write` formats (numbers and times, newline included), put together on the stack and
    /// appended at once. A key too long to leave room for the longest value goes first on its own.
    private mutating func appendLine(_ key: String, _ write: (inout ShortText) -> Void) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: ShortText.capacity) { buffer in
            var text = ShortText(buffer.baseAddress!)
            let inline = key.utf8.count <= ShortText.capacity - ShortText.valueRoom
                && key.utf8.withContiguousStorageIfAvailable({ text.append($0) }) != nil
            if inline {
                text.byte(0x3A)
                text.byte(0x20)
            } else {
                addKey(key)
            }
            write(&text)
            bytes.append(contentsOf: UnsafeBufferPointer(start: buffer.baseAddress, count: text.count))
        }
    }

    /// Appends `key: value\n` with the value's bytes as they are (they may not be UTF-8); newlines become spaces.
    public mutating func add(_ key: String, bytes value: [UInt8]) {
        value.withUnsafeBufferPointer { add(key, utf8: $0) }
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

/// Up to `capacity` bytes written through a pointer: what `appendLine` and `writeLine` put a line together in. The
/// longest use (`A-B` of two thousandths) takes 53 bytes.
struct ShortText {
    static let capacity = 128
    /// Room a formatted value needs at most after its key (a time, a range of two thousandths, a newline).
    static let valueRoom = 64
    private let base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0

    init(_ base: UnsafeMutablePointer<UInt8>) {
        self.base = base
    }

    mutating func byte(_ value: UInt8) {
        base[count] = value
        count += 1
    }

    /// Bytes as they are (the caller made room for them).
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        (base + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    /// Decimal digits without going through a `String`.
    mutating func decimal(_ value: Int64) {
        if value < 0 { byte(0x2D) }
        var magnitude = value.magnitude
        var digits = 0
        repeat {
            digits += 1
            magnitude /= 10
        } while magnitude > 0
        magnitude = value.magnitude
        for index in stride(from: count + digits - 1, through: count, by: -1) {
            base[index] = UInt8(truncatingIfNeeded: 0x30 + magnitude % 10)
            magnitude /= 10
        }
        count += digits
    }

    mutating func twoDigits(_ value: Int64) {
        if value >= 0, value < 100 {
            byte(UInt8(truncatingIfNeeded: 0x30 + value / 10))
            byte(UInt8(truncatingIfNeeded: 0x30 + value % 10))
        } else {
            decimal(value)
        }
    }

    /// `%1.3f` of thousandths.
    mutating func thousandths(_ value: Int64) {
        if value < 0, value / 1000 == 0 { byte(0x2D) } // `-0.500`: the whole part alone loses the sign
        decimal(value / 1000)
        byte(0x2E)
        let fraction = Int((value % 1000).magnitude)
        byte(UInt8(truncatingIfNeeded: 0x30 + fraction / 100))
        byte(UInt8(truncatingIfNeeded: 0x30 + fraction / 10 % 10))
        byte(UInt8(truncatingIfNeeded: 0x30 + fraction % 10))
    }
}
