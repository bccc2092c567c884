import Glibc
import NIOCore

/// A connection's unread input, split into lines as MPD reads them (`src/client/Read.cxx`): a line is what comes
/// before `\n`; a line that does not end within MPD's 8 KiB input buffer ends the connection ("Input buffer is
/// full"), with no answer. The connection takes lines one at a time, so it can stop part way through a read and go
/// on at its next turn without holding every line of a large pipelined write at once.
struct InputLines {
    struct LineTooLong: Error {}

    /// MPD's `StaticFifoBuffer<8192>`: 8191 bytes plus the newline.
    static let maximumLineLength = 8192

    private var buffer: ByteBuffer

    init(allocator: ByteBufferAllocator = ByteBufferAllocator()) {
        buffer = allocator.buffer(capacity: 0)
    }

    mutating func append(_ bytes: inout ByteBuffer) {
        if buffer.readerIndex > 0 { buffer.discardReadBytes() }
        if buffer.readableBytes == 0 {
            // Nothing kept: take the read's buffer as it is.
            swap(&buffer, &bytes)
        } else {
            buffer.writeBuffer(&bytes)
        }
    }

    /// Reads at most `size` bytes from `descriptor` after what waits; the count, 0 at the end of input, or -1 with
    /// `errno`. The storage of a small buffer stays from one read to the next (`next`).
    mutating func read(from descriptor: CInt, upTo size: Int) -> Int {
        if buffer.readableBytes == 0 {
            buffer.clear()
        } else if buffer.readerIndex > 0 {
            buffer.discardReadBytes()
        }
        var count = 0
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: size) { space in
            count = Glibc.read(descriptor, space.baseAddress, min(space.count, size))
            return max(count, 0)
        }
        return count
    }

    /// The next complete line without its newline, or nil when none is complete yet. Throws `LineTooLong` for a
    /// line MPD would not have room for. The line shares the input's storage (no copy: a copy per line was a
    /// fifth of the instructions of a `ping` in a command list).
    mutating func next() throws -> ByteBuffer? {
        // All taken (the usual second call after a read's one line): the storage went back already.
        guard buffer.readableBytes > 0 else { return nil }
        let length = buffer.withUnsafeReadableBytes { bytes -> Int? in
            guard let start = bytes.baseAddress, !bytes.isEmpty,
                  let newline = memchr(start, 0x0A, bytes.count) else { return nil }
            return UnsafeRawPointer(newline) - start
        }
        guard let length else {
            if buffer.readableBytes >= Self.maximumLineLength { throw LineTooLong() }
            if buffer.readableBytes == 0 { buffer = Self.empty }
            return nil
        }
        guard length < Self.maximumLineLength else { throw LineTooLong() }
        let line = buffer.readSlice(length: length)!
        buffer.moveReaderIndex(forwardBy: 1)
        // All read: a large storage goes back, so an idle connection holds at most a small one (the next read
        // reuses it: `read`; a SwiftNIO channel's reads come in buffers of their own, `append`).
        if buffer.readableBytes == 0, buffer.capacity > Self.keptCapacity { buffer = Self.empty }
        return line
    }

    private static let empty = ByteBufferAllocator().buffer(capacity: 0)
    /// The largest storage kept for the next read: a command line and then some.
    private static let keptCapacity = 2048

    /// Whether a complete line waits.
    var hasLine: Bool {
        buffer.withUnsafeReadableBytes { bytes in
            guard let start = bytes.baseAddress, !bytes.isEmpty else { return false }
            return memchr(start, 0x0A, bytes.count) != nil
        }
    }

    mutating func removeAll() { buffer.clear() }
}
