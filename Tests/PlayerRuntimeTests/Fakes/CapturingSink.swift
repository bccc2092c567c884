import Glibc
import PlayerCore
import Synchronization

/// What one output received, across every sink its factory made: the bytes written and what the engine asked
/// the device to do. A test can make the output fail to open or fail on a write, or hold it inside `write`.
final class Capture: Sendable {
    enum Event: Equatable, Sendable {
        case open(AudioFormat)
        case drain, cancel, pause, close
    }

    private struct State {
        var bytes: [UInt8] = []
        /// Each event with the number of bytes written before it.
        var events: [(event: Event, at: Int)] = []
        var holdAt: Int?
        var failOpen: OutputError?
        var failWriteAt: Int?
    }

    private let state = Mutex(State())

    /// `failOpen`: every open throws it. `failWriteAt`: the write that would take the bytes past this many throws.
    init(failOpen: OutputError? = nil, failWriteAt: Int? = nil) {
        state.withLock {
            $0.failOpen = failOpen
            $0.failWriteAt = failWriteAt
        }
    }

    var bytes: [UInt8] { state.withLock { $0.bytes } }
    var count: Int { state.withLock { $0.bytes.count } }
    var events: [Event] { state.withLock { $0.events.map(\.event) } }
    /// The bytes written before each `event`.
    func positions(of event: Event) -> [Int] { state.withLock { $0.events.filter { $0.event == event }.map(\.at) } }
    /// The sink was closed and not opened again (the output is done).
    var isClosed: Bool { state.withLock { $0.events.last?.event == .close } }

    /// The write that reaches `bytes` (counting what was written before) keeps the output thread inside `write`
    /// until `release()`: the output is then known to be at that point, without timing.
    func hold(at bytes: Int) { state.withLock { $0.holdAt = bytes } }
    func release() { state.withLock { $0.holdAt = nil } }
    /// The output thread is held inside `write`.
    var isHeld: Bool { state.withLock { s in s.holdAt.map { s.bytes.count >= $0 } ?? false } }

    fileprivate func record(_ event: Event) { state.withLock { $0.events.append((event, $0.bytes.count)) } }

    fileprivate func open(_ format: AudioFormat) throws(OutputError) {
        record(.open(format))
        if let error = state.withLock({ $0.failOpen }) { throw error }
    }

    fileprivate func write(_ data: UnsafeRawBufferPointer) throws(OutputError) {
        let failed = state.withLock { state -> Bool in
            if let limit = state.failWriteAt, state.bytes.count + data.count > limit { return true }
            state.bytes += data
            return false
        }
        if failed { throw OutputError("scripted write failure") }
        while isHeld { usleep(1000) }
    }
}

/// The sink an output's factory makes: it plays into a `Capture`. It takes data at any speed (`keepsTime` false),
/// so an output with `paced` is paced by the engine's clock, one without is not paced at all.
final class CapturingSink: AudioSink {
    let capture: Capture

    init(_ capture: Capture) { self.capture = capture }

    func open(_ format: AudioFormat) throws(OutputError) -> AudioFormat {
        try capture.open(format)
        return format
    }

    func write(_ data: UnsafeRawBufferPointer) throws(OutputError) { try capture.write(data) }
    func drain() { capture.record(.drain) }
    func cancel() { capture.record(.cancel) }
    func pause() { capture.record(.pause) }
    func close() { capture.record(.close) }
    var keepsTime: Bool { false }
}
