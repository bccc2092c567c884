/// Values gathered in one order and handed out in another, each moved exactly once. Putting an array of values that
/// hold references (a `Song`'s text and tags) in another order by copying retains every reference again and
/// releases it with the old array; a move touches no reference count.
final class MovingBuffer<Element> {
    private let base: UnsafeMutablePointer<Element>
    let capacity: Int
    private(set) var count = 0

    init(capacity: Int) {
        self.capacity = max(capacity, 0)
        base = .allocate(capacity: self.capacity)
    }

    deinit {
        base.deinitialize(count: count)
        base.deallocate()
    }

    var isFull: Bool { count == capacity }

    func append(_ element: consuming Element) {
        precondition(count < capacity, "MovingBuffer is full")
        (base + count).initialize(to: element)
        count += 1
    }

    /// The values in the order appended; the buffer is empty afterwards.
    func take() -> [Element] {
        guard count > 0 else { return [] }
        let moved = [Element](unsafeUninitializedCapacity: count) { buffer, initialized in
            buffer.baseAddress!.moveInitialize(from: base, count: count)
            initialized = count
        }
        count = 0
        return moved
    }

    /// The values in `order`, a permutation of `0..<count` (each index once); the buffer is empty afterwards.
    func take(in order: [Int]) -> [Element] {
        precondition(order.count == count, "not a permutation of the values")
        guard count > 0 else { return [] }
        let moved = [Element](unsafeUninitializedCapacity: count) { buffer, initialized in
            for (position, index) in order.enumerated() {
                (buffer.baseAddress! + position).initialize(to: (base + index).move())
            }
            initialized = order.count
        }
        count = 0
        return moved
    }
}
