@testable import Library
import Testing

/// `MovingBuffer`: values handed out in another order, each exactly once (a class counts its instances, so a value
/// copied or freed twice, or never freed, shows).
@Suite struct MovingBufferTests {
    final class Counted {
        nonisolated(unsafe) static var alive = 0
        let value: Int
        init(_ value: Int) { self.value = value; Self.alive += 1 }
        deinit { Self.alive -= 1 }
    }

    @Test func takesInOrderAndInAPermutation() {
        do {
            let buffer = MovingBuffer<Counted>(capacity: 5)
            for value in 0..<5 { buffer.append(Counted(value)) }
            #expect(buffer.isFull && Counted.alive == 5)
            let taken = buffer.take(in: [3, 0, 4, 1, 2])
            #expect(taken.map(\.value) == [3, 0, 4, 1, 2])
            #expect(buffer.count == 0 && Counted.alive == 5)
            #expect(Set(taken.map { ObjectIdentifier($0) }).count == 5)

            let again = MovingBuffer<Counted>(capacity: 3)
            for value in 10..<12 { again.append(Counted(value)) }
            #expect(!again.isFull)
            let second = again.take()
            #expect(second.map(\.value) == [10, 11])
            #expect(Counted.alive == 7)
        }
        #expect(Counted.alive == 0)
        // Nothing appended (or no room at all): empty answers.
        #expect(MovingBuffer<Counted>(capacity: 0).take().isEmpty)
        #expect(MovingBuffer<Counted>(capacity: 3).take(in: []).isEmpty)
        // Values never taken are freed with the buffer.
        do {
            let left = MovingBuffer<Counted>(capacity: 4)
            for value in 0..<3 { left.append(Counted(value)) }
            #expect(Counted.alive == 3)
        }
        #expect(Counted.alive == 0)
    }
}
