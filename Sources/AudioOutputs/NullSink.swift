import PlayerCore

/// MPD's `null` output: takes any format and discards it. It does not keep time, so with `sync` (MPD's default)
/// the engine plays it at real speed by its own clock, and elapsed time advances as on a sound card; with
/// `sync "no"` it plays as fast as the decoder goes.
public final class NullSink: AudioSink {
    public private(set) var isOpen = false
    /// Bytes taken since the last `open`, for tests and diagnostics.
    public private(set) var bytesWritten = 0

    public init() {}

    public func open(_ format: AudioFormat) throws(OutputError) -> AudioFormat {
        isOpen = true
        bytesWritten = 0
        return format
    }

    public func write(_ data: UnsafeRawBufferPointer) throws(OutputError) {
        bytesWritten += data.count
    }

    public func drain() {}
    public func cancel() {}
    public func pause() {}

    public func close() {
        isOpen = false
    }

    public var keepsTime: Bool { false }
}
