/// The body of a successful answer: `key: value` lines and binary chunks, before the final `OK` or `list_OK`.
/// Bytes, not a String, because binary chunks (`albumart`, `readpicture`) are raw.
public struct Response: Sendable, Equatable {
    public private(set) var bytes: [UInt8] = []

    public init() {}

    /// An answer written into `storage` (emptied, its capacity kept), which is left empty.
    public init(reusing storage: inout [UInt8]) {
        storage.removeAll(keepingCapacity: true)
        swap(&bytes, &storage)
    }

    public var isEmpty: Bool { bytes.isEmpty }

    /// The bytes, without a copy when this is the last owner of the answer.
    public consuming func takeBytes() -> [UInt8] { bytes }

    /// Writes lines through `Lines`: a buffer on the stack, appended to the answer in one piece when it fills and
    /// at the end. Formatters of many lines (`status`, a song's block) write through one; each `add` below is one
    /// line through one of its own.
    /// (Not generic, not throwing: called from other modules, a generic one ran unspecialised, looking up
    /// metadata on every call.)
    public mutating func writeLines(_ body: (inout Lines) -> Void) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Lines.capacity) { buffer in
            withUnsafeMutablePointer(to: &self) { response in
                var lines = Lines(buffer.baseAddress!, response: response)
                body(&lines)
                lines.flush()
            }
        }
    }

    /// Appends `key: value\n`. A newline inside a value would break the framing, so it is replaced by a space
    /// (MPD drops such values; a space keeps the line readable).
    public mutating func add(_ key: String, _ value: String) {
        writeLines { lines in
            Lines.withUTF8(key) { key in Lines.withUTF8(value) { value in lines.line(key, value) } }
        }
    }

    /// `add` of a value given as its UTF-8 bytes (a song's `PackedTags`).
    public mutating func add(_ key: String, utf8 value: UnsafeBufferPointer<UInt8>) {
        writeLines { lines in Lines.withUTF8(key) { lines.line($0, value) } }
    }

    /// `add` of a key given as its UTF-8 bytes (a tag name as a song's `PackedTags` holds it).
    public mutating func add(utf8Key key: UnsafeBufferPointer<UInt8>, utf8 value: UnsafeBufferPointer<UInt8>) {
        writeLines { $0.line(key, value) }
    }

    /// `key: value` lines whose value has a line break (each becomes a space) or bytes a client sent that are not
    /// UTF-8 (`ByteText`: they go back as those bytes), and lines longer than `Lines` holds.
    @usableFromInline
    mutating func appendLine(_ key: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>, special: Bool) {
        bytes.reserveCapacity(bytes.count + key.count + value.count + 3)
        bytes.append(contentsOf: key)
        bytes.append(0x3A)
        bytes.append(0x20)
        if special { appendSpecial(value) } else { bytes.append(contentsOf: value) }
        bytes.append(0x0A)
    }

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

    @usableFromInline
    mutating func append(_ part: UnsafeBufferPointer<UInt8>) {
        bytes.append(contentsOf: part)
    }

    /// `add` of an `Int`, most numbers printed: the generic one below is not specialised in the modules that call
    /// it, and its type metadata lookups were a tenth of a `status` answer's work.
    public mutating func add(_ key: String, _ value: Int) {
        writeLines { lines in Lines.withUTF8(key) { lines.number($0, Int64(value)) } }
    }

    public mutating func add(_ key: String, _ value: some BinaryInteger) {
        if let small = Int64(exactly: value) {
            writeLines { lines in Lines.withUTF8(key) { lines.number($0, small) } }
        } else {
            add(key, String(value))
        }
    }

    /// Room for `count` more bytes, for callers that know roughly how large the response gets (long song lists).
    public mutating func reserveCapacity(_ count: Int) { bytes.reserveCapacity(bytes.count + count) }

    /// `key: %Y-%m-%dT%H:%M:%SZ` in UTC (`time_print`, MPD's `Last-Modified`), written digit by digit.
    public mutating func addTime(_ key: String, unix: Int64) {
        writeLines { lines in Lines.withUTF8(key) { lines.time($0, unix: unix) } }
    }

    /// `key: %1.3f` of a whole number of thousandths (MPD's `duration`, `elapsed`, `Range`).
    public mutating func addThousandths(_ key: String, _ thousandths: Int64) {
        writeLines { lines in Lines.withUTF8(key) { lines.thousandths($0, thousandths) } }
    }

    /// `key: A-B` (or `A-`) of thousandths, as `Range:` prints a queue item's sub-range.
    public mutating func addThousandthsRange(_ key: String, _ start: Int64, _ end: Int64?) {
        writeLines { lines in Lines.withUTF8(key) { lines.thousandthsRange($0, start, end) } }
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

/// Lines of an answer put together in a buffer on the stack and appended to the `Response` in one piece when it
/// fills and at the end (`Response.writeLines`). An `Array` append per line (a uniqueness and a capacity check, a
/// call to copy) was most of the cost of a short line, and a `status` is a dozen of them.
///
/// The common lines (a `StaticString` key with a number or a `String`) are inlined where they are written, down to
/// the bytes: called from the formatters' modules, each was a call with closures and copies of unknown length (~140
/// instructions a line; inlined, the key's length is known where it is written). `@inlinable` alone left them calls.
public struct Lines: ~Copyable {
    /// At most what `withUnsafeTemporaryAllocation` always puts on the stack (1 KiB); a larger one is put on the
    /// heap unless the runtime can tell the thread's stack has room, which it could not on NIO's threads.
    @usableFromInline static var capacity: Int { 1024 }
    /// Room a formatted number needs at most after its key: a time, a range of two thousandths (53 bytes), `\n`.
    @usableFromInline static var valueRoom: Int { 64 }
    @usableFromInline var text: ShortText
    @usableFromInline let response: UnsafeMutablePointer<Response>

    fileprivate init(_ base: UnsafeMutablePointer<UInt8>, response: UnsafeMutablePointer<Response>) {
        text = ShortText(base)
        self.response = response
    }

    /// Appends what the buffer holds to the response.
    @usableFromInline
    mutating func flush() {
        guard text.count > 0 else { return }
        response.pointee.append(text.written)
        text.count = 0
    }

    /// `key: value`.
    @inlinable @inline(__always)
    public mutating func add(_ key: StaticString, _ value: String) {
        key.withUTF8Buffer { key in Self.withUTF8(value) { line(key, $0) } }
    }

    public mutating func add(utf8Key key: UnsafeBufferPointer<UInt8>, utf8 value: UnsafeBufferPointer<UInt8>) {
        line(key, value)
    }

    @inlinable @inline(__always)
    public mutating func add(_ key: StaticString, _ value: Int) {
        key.withUTF8Buffer { number($0, Int64(value)) }
    }

    public mutating func addTime(_ key: StaticString, unix: Int64) {
        key.withUTF8Buffer { time($0, unix: unix) }
    }

    public mutating func addThousandths(_ key: StaticString, _ thousandths: Int64) {
        key.withUTF8Buffer { self.thousandths($0, thousandths) }
    }

    public mutating func addThousandthsRange(_ key: StaticString, _ start: Int64, _ end: Int64?) {
        key.withUTF8Buffer { thousandthsRange($0, start, end) }
    }

    /// A String's UTF-8 where it is (a native string's storage, a small string spilled to the stack;
    /// `utf8.withContiguousStorageIfAvailable` went through an unspecialised generic path, ~80 instructions a call).
    @inlinable @inline(__always)
    public static func withUTF8<R>(_ string: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        var string = string
        return string.withUTF8(body)
    }

    @inlinable @inline(__always)
    mutating func line(_ key: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>) {
        if value.contains(where: { $0 == 0x0A || $0 == 0x0D || ByteText.needsEncoding($0) }) {
            flush()
            response.pointee.appendLine(key, value, special: true)
            return
        }
        let length = key.count + value.count + 3
        guard room(length) else {
            response.pointee.appendLine(key, value, special: false)
            return
        }
        text.append(key)
        text.byte(0x3A)
        text.byte(0x20)
        text.append(value)
        text.byte(0x0A)
    }

    /// `key: ` then what `write` formats (at most `valueRoom` bytes, its newline included).
    @inlinable @inline(__always)
    mutating func formatted(_ key: UnsafeBufferPointer<UInt8>, _ write: (inout ShortText) -> Void) {
        if room(key.count + 2 + Self.valueRoom) {
            text.append(key)
        } else {
            // A key longer than the whole buffer: on its own, straight into the response (the buffer is empty).
            response.pointee.append(key)
        }
        text.byte(0x3A)
        text.byte(0x20)
        write(&text)
    }

    /// Makes room for `count` bytes, flushing if need be; false when they would not fit even then (the buffer is
    /// then empty).
    @inlinable @inline(__always)
    mutating func room(_ count: Int) -> Bool {
        if text.count + count > Self.capacity { flush() }
        return count <= Self.capacity
    }

    @inlinable @inline(__always)
    mutating func number(_ key: UnsafeBufferPointer<UInt8>, _ value: Int64) {
        formatted(key) { text in
            text.decimal(value)
            text.byte(0x0A)
        }
    }

    mutating func time(_ key: UnsafeBufferPointer<UInt8>, unix: Int64) {
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
        formatted(key) { line in
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

    mutating func thousandths(_ key: UnsafeBufferPointer<UInt8>, _ value: Int64) {
        formatted(key) { line in
            line.thousandths(value)
            line.byte(0x0A)
        }
    }

    mutating func thousandthsRange(_ key: UnsafeBufferPointer<UInt8>, _ start: Int64, _ end: Int64?) {
        formatted(key) { line in
            line.thousandths(start)
            line.byte(0x2D)
            if let end { line.thousandths(end) }
            line.byte(0x0A)
        }
    }
}

/// Bytes written through a pointer (the caller made room): what `Lines` puts lines together in.
@usableFromInline
struct ShortText {
    @usableFromInline let base: UnsafeMutablePointer<UInt8>
    @usableFromInline var count = 0

    @inlinable
    init(_ base: UnsafeMutablePointer<UInt8>) {
        self.base = base
    }

    @inlinable
    var written: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }
    @inlinable @inline(__always)
    mutating func byte(_ value: UInt8) {
        base[count] = value
        count += 1
    }

    /// Bytes as they are (the caller made room for them).
    @inlinable @inline(__always)
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        (base + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    /// Decimal digits without going through a `String`.
    @inlinable @inline(__always)
    mutating func decimal(_ value: Int64) {
        // One digit, most numbers of a `status` (flags, modes, small counts).
        if value >= 0, value < 10 {
            byte(UInt8(truncatingIfNeeded: 0x30 + value))
            return
        }
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
