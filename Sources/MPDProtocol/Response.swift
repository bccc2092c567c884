/// The body of a successful answer: `key: value` lines and binary chunks, before the final `OK` or `list_OK`.
/// Bytes, not a String, because binary chunks (`albumart`, `readpicture`) are raw.
public struct Response: Sendable, Equatable {
    public private(set) var bytes: [UInt8] = []

    public init() {}

    public var isEmpty: Bool { bytes.isEmpty }

    /// Appends `key: value\n`. A newline inside a value would break the framing, so it is replaced by a space
    /// (MPD drops such values; a space keeps the line readable).
    public mutating func add(_ key: String, _ value: String) {
        var key = key, value = value
        key.withUTF8 { key in value.withUTF8 { value in writeLine(key, value) } }
    }

    /// The line is reserved once and written through a pointer, blanking line breaks of the value on the way:
    /// appending piece by piece (a uniqueness and capacity check each) was most of the cost of large song lists.
    private mutating func writeLine(_ key: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>) {
        let start = bytes.count
        let length = key.count + value.count + 3
        if bytes.capacity < start + length { bytes.reserveCapacity(Swift.max(start + length, bytes.capacity * 2)) }
        bytes.append(contentsOf: repeatElement(0, count: length))
        let kept = bytes.withUnsafeMutableBufferPointer { buffer in
            var position = start
            for byte in key {
                buffer[position] = byte
                position += 1
            }
            buffer[position] = 0x3A
            buffer[position + 1] = 0x20
            position += 2
            var kept = false
            for byte in value {
                buffer[position] = byte == 0x0A || byte == 0x0D ? 0x20 : byte
                kept = kept || ByteText.needsEncoding(byte)
                position += 1
            }
            buffer[position] = 0x0A
            return kept
        }
        guard kept else { return }
        // A value with bytes a client sent that are not UTF-8 (`ByteText`): they go back as those bytes.
        let valueRange = (start + key.count + 2)..<(bytes.count - 1)
        bytes.replaceSubrange(valueRange, with: ByteText.encode(bytes[valueRange]))
    }

    public mutating func add(_ key: String, _ value: some BinaryInteger) {
        if let small = Int64(exactly: value) {
            addKey(key)
            appendDecimal(small)
            bytes.append(0x0A)
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
        addKey(key)
        appendDecimal(year)
        bytes.append(0x2D)
        appendTwoDigits(month)
        bytes.append(0x2D)
        appendTwoDigits(day)
        bytes.append(0x54)
        appendTwoDigits(seconds / 3600)
        bytes.append(0x3A)
        appendTwoDigits(seconds / 60 % 60)
        bytes.append(0x3A)
        appendTwoDigits(seconds % 60)
        bytes.append(0x5A)
        bytes.append(0x0A)
    }

    /// `key: %1.3f` of a whole number of thousandths (MPD's `duration`, `elapsed`, `Range`).
    public mutating func addThousandths(_ key: String, _ thousandths: Int64) {
        addKey(key)
        appendThousandths(thousandths)
        bytes.append(0x0A)
    }

    /// `key: A-B` (or `A-`) of thousandths, as `Range:` prints a queue item's sub-range.
    public mutating func addThousandthsRange(_ key: String, _ start: Int64, _ end: Int64?) {
        addKey(key)
        appendThousandths(start)
        bytes.append(0x2D)
        if let end { appendThousandths(end) }
        bytes.append(0x0A)
    }

    private mutating func addKey(_ key: String) {
        bytes.append(contentsOf: key.utf8)
        bytes.append(0x3A)
        bytes.append(0x20)
    }

    private mutating func appendThousandths(_ value: Int64) {
        if value < 0, value / 1000 == 0 { bytes.append(0x2D) } // `-0.500`: the whole part alone loses the sign
        appendDecimal(value / 1000)
        bytes.append(0x2E)
        let fraction = Int((value % 1000).magnitude)
        bytes.append(UInt8(truncatingIfNeeded: 0x30 + fraction / 100))
        bytes.append(UInt8(truncatingIfNeeded: 0x30 + fraction / 10 % 10))
        bytes.append(UInt8(truncatingIfNeeded: 0x30 + fraction % 10))
    }

    private mutating func appendTwoDigits(_ value: Int64) {
        if value >= 0, value < 100 {
            bytes.append(UInt8(truncatingIfNeeded: 0x30 + value / 10))
            bytes.append(UInt8(truncatingIfNeeded: 0x30 + value % 10))
        } else {
            appendDecimal(value)
        }
    }

    /// Decimal digits without going through a `String`.
    private mutating func appendDecimal(_ value: Int64) {
        var magnitude = value.magnitude
        if value < 0 { bytes.append(0x2D) }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[19 - count] = UInt8(truncatingIfNeeded: 0x30 + magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[(20 - count)...]))
        }
    }

    /// Appends `key: value\n` with the value's bytes as they are (they may not be UTF-8); newlines become spaces.
    public mutating func add(_ key: String, bytes value: [UInt8]) {
        var key = key
        key.withUTF8 { key in value.withUnsafeBufferPointer { value in writeLine(key, value) } }
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
