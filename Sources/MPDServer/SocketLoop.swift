import CEventPoll
import CSocket
import Glibc
import NIOCore
import Synchronization

/// An event loop of the protocol server's own, as MPD's `EventLoop`: one thread waiting in `epoll` for its
/// connections' sockets, running the work handed to it and its timers. The MPD connections run here rather than on
/// SwiftNIO's channels: a `status` round trip spent a third of its user time in SwiftNIO's read path (selector,
/// channel, pipeline, buffer allocator), whose code spread over twice the cache lines that MPD's whole round trip
/// touches.
///
/// Level-triggered like MPD's: a connection that does not want input (a deferred command runs) stops watching for it
/// when input comes, and watches again when it is ready (`SocketConnection`).
final class SocketLoop: LoopExecutor, @unchecked Sendable {
    /// One loop a core, started on first use and never stopped (SwiftNIO's singleton group did the same); accepted
    /// connections go to them in turn.
    static let loops: [SocketLoop] = (0..<max(1, Int(sysconf(CInt(_SC_NPROCESSORS_ONLN))))).map { _ in SocketLoop() }
    private static let nextLoop = Atomic<Int>(0)

    static func next() -> SocketLoop {
        loops[nextLoop.wrappingAdd(1, ordering: .relaxed).oldValue % loops.count]
    }

    private let poll: CInt
    private let wake: CInt
    private var thread = pthread_t()

    /// Work handed over from other threads; `wakePending`: the eventfd was written and not yet read.
    private let handed = Mutex<(work: [@Sendable () -> Void], wakePending: Bool)>(([], false))

    // Touched on the loop's thread only.
    private var connections: [SocketConnection?] = []
    /// Work for after the next look at the sockets (`later`).
    private var laterWork: [() -> Void] = []
    private var timers = Timers()

    private init() {
        poll = nosignal_poll_create()
        wake = eventfd(0, O_CLOEXEC | O_NONBLOCK) // EFD_CLOEXEC, EFD_NONBLOCK
        precondition(poll >= 0 && wake >= 0, "cannot make an event loop: \(String(cString: strerror(errno)))")
        _ = nosignal_poll_watch(poll, wake, UInt32(NOSIGNAL_POLL_IN), 1)
        do {
            thread = try startThread("an event loop's thread") { [self] in run() }
        } catch {
            preconditionFailure("\(error)")
        }
    }

    var inLoop: Bool { pthread_equal(pthread_self(), thread) != 0 }

    /// Runs `body` on the loop's thread, from any thread; on the loop's own thread, after what it is doing now.
    func execute(_ body: @escaping @Sendable () -> Void) {
        if inLoop {
            laterWork.append(body)
            return
        }
        let write = handed.withLock { handed -> Bool in
            handed.work.append(body)
            guard !handed.wakePending else { return false }
            handed.wakePending = true
            return true
        }
        if write {
            var one: UInt64 = 1
            _ = Glibc.write(wake, &one, 8)
        }
    }

    /// Runs `body` once the loop has looked at its sockets again (and served the connections ready there). Loop
    /// thread only.
    func later(_ body: @escaping () -> Void) {
        laterWork.append(body)
    }

    /// Runs `body` at `deadline` unless cancelled. Loop thread only.
    func schedule(at deadline: NIODeadline, _ body: @escaping () -> Void) -> Int {
        timers.add(at: deadline.uptimeNanoseconds, body)
    }

    func cancel(_ timer: Int) {
        timers.cancel(timer)
    }

    /// Serves `descriptor` (a connected, non-blocking socket) as an MPD connection made by `make`, on this loop.
    func serve(_ descriptor: CInt, _ make: @escaping @Sendable (SocketConnection) -> Connection<SocketConnection>) {
        execute { [self] in
            let connection = SocketConnection(descriptor: descriptor, loop: self)
            guard nosignal_poll_watch(poll, descriptor, UInt32(NOSIGNAL_POLL_IN), 1) == 0 else {
                close(descriptor)
                return
            }
            if descriptor >= connections.count {
                connections += Array(repeating: nil, count: Int(descriptor) + 1 - connections.count)
            }
            connections[Int(descriptor)] = connection
            connection.start(make(connection))
        }
    }

    /// Changes what the loop watches `descriptor` for.
    func watch(_ descriptor: CInt, events: UInt32) {
        _ = nosignal_poll_watch(poll, descriptor, events, 0)
    }

    /// Stops watching `descriptor` and closes it.
    func forget(_ descriptor: CInt) {
        _ = nosignal_poll_forget(poll, descriptor)
        connections[Int(descriptor)] = nil
        close(descriptor)
    }

    private func run() {
        let capacity = 64
        let ready = UnsafeMutablePointer<nosignal_poll_event>.allocate(capacity: capacity)
        while true {
            let timeout: CInt
            if !laterWork.isEmpty {
                timeout = 0
            } else if let due = timers.nextDue {
                let now = NIODeadline.now().uptimeNanoseconds
                timeout = due <= now ? 0 : CInt(clamping: (due - now + 999_999) / 1_000_000)
            } else {
                timeout = -1
            }
            let count = Int(nosignal_poll_wait(poll, ready, CInt(capacity), timeout))
            var handedOver = false
            if count > 0 {
                for index in 0..<count {
                    let event = ready[index]
                    if event.descriptor == wake {
                        handedOver = true
                    } else if Int(event.descriptor) < connections.count, let connection = connections[Int(event.descriptor)] {
                        connection.ready(event.events)
                    }
                }
            }
            if !laterWork.isEmpty {
                let work = laterWork
                laterWork = []
                for body in work { body() }
            }
            // Work from other threads wrote the eventfd (`execute`).
            if handedOver { runHandedWork() }
            if timers.nextDue != nil {
                let now = NIODeadline.now().uptimeNanoseconds
                // One at a time: a timer's work may set another.
                while let body = timers.popDue(now: now) { body() }
            }
        }
    }

    private func runHandedWork() {
        var value: UInt64 = 0
        _ = read(wake, &value, 8)
        while true {
            let work = handed.withLock { handed -> [@Sendable () -> Void] in
                handed.wakePending = false
                return handed.work.isEmpty ? [] : Swift.exchange(&handed.work, with: [])
            }
            if work.isEmpty { return }
            for body in work { body() }
        }
    }

    /// The loop's timers: a binary heap of due times, with the work of the ones not cancelled.
    private struct Timers {
        private var heap: [(due: UInt64, id: Int)] = []
        private var work: [Int: () -> Void] = [:]
        private var lastID = 0

        var nextDue: UInt64? {
            mutating get {
                while let first = heap.first, work[first.id] == nil { pop() }
                return heap.first?.due
            }
        }

        mutating func add(at due: UInt64, _ body: @escaping () -> Void) -> Int {
            lastID += 1
            work[lastID] = body
            heap.append((due, lastID))
            var child = heap.count - 1
            while child > 0 {
                let parent = (child - 1) / 2
                guard heap[child].due < heap[parent].due else { break }
                heap.swapAt(child, parent)
                child = parent
            }
            return lastID
        }

        mutating func cancel(_ id: Int) {
            work[id] = nil
        }

        /// The work of a timer due by `now`, taken off.
        mutating func popDue(now: UInt64) -> (() -> Void)? {
            while let first = heap.first, first.due <= now {
                pop()
                if let body = work.removeValue(forKey: first.id) { return body }
            }
            return nil
        }

        private mutating func pop() {
            let last = heap.removeLast()
            guard !heap.isEmpty else { return }
            heap[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1, right = left + 1
                var smallest = parent
                if left < heap.count, heap[left].due < heap[smallest].due { smallest = left }
                if right < heap.count, heap[right].due < heap[smallest].due { smallest = right }
                if smallest == parent { return }
                heap.swapAt(parent, smallest)
                parent = smallest
            }
        }
    }
}
