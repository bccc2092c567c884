/// A circular byte queue: the network thread appends, the reader takes from the front, and memory stays at the
/// capacity however long a stream plays. It grows only when a single write is larger than what is free (the
/// stream pauses the transfer before that unless the queue is empty), so no write is ever refused.
struct ByteRing {
    private var storage: [UInt8]
    private var head = 0
    private(set) var count = 0

    init(capacity: Int) {
        storage = [UInt8](repeating: 0, count: max(capacity, 1))
    }

    var capacity: Int { storage.count }
    var free: Int { storage.count - count }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        if bytes.count > free { grow(to: count + bytes.count) }
        let tail = (head + count) % storage.count
        let first = min(bytes.count, storage.count - tail)
        storage.withUnsafeMutableBytes { raw in
            raw.baseAddress!.advanced(by: tail).copyMemory(from: bytes.baseAddress!, byteCount: first)
            if first < bytes.count {
                raw.baseAddress!.copyMemory(from: bytes.baseAddress!.advanced(by: first), byteCount: bytes.count - first)
            }
        }
        count += bytes.count
    }

    /// Moves up to `buffer.count` bytes from the front into `buffer`; returns how many.
    mutating func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let total = min(buffer.count, count)
        guard total > 0 else { return 0 }
        let first = min(total, storage.count - head)
        storage.withUnsafeBytes { raw in
            buffer.baseAddress!.copyMemory(from: raw.baseAddress!.advanced(by: head), byteCount: first)
            if first < total {
                buffer.baseAddress!.advanced(by: first).copyMemory(from: raw.baseAddress!, byteCount: total - first)
            }
        }
        discard(total)
        return total
    }

    mutating func discard(_ bytes: Int) {
        let dropped = min(bytes, count)
        head = (head + dropped) % storage.count
        count -= dropped
        if count == 0 { head = 0 }
    }

    mutating func removeAll() {
        head = 0
        count = 0
    }

    private mutating func grow(to needed: Int) {
        let kept = count
        var larger = [UInt8](repeating: 0, count: max(needed, storage.count * 2))
        larger.withUnsafeMutableBytes { raw in _ = read(into: raw) }
        storage = larger
        count = kept
        head = 0
    }
}
