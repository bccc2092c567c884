/// One audio output device (`audio_output` block): ALSA, null, fifo, pipe, httpd. Each runs on its own output
/// thread, so a sink is used from one thread at a time and need not be `Sendable`; blocking is expected.
public protocol AudioSink: AnyObject {
    /// Opens the device for `format` and returns the format it accepts, which may differ (a card without float
    /// support, a fixed `format` setting); the engine converts to it. Throws when the device cannot be opened.
    func open(_ format: AudioFormat) throws(OutputError) -> AudioFormat
    /// Writes whole frames in the opened format. Blocks while the device is full.
    func write(_ data: UnsafeRawBufferPointer) throws(OutputError)
    /// Plays out what the device still buffers (before a format change or at the end of the queue).
    func drain()
    /// Drops what the device still buffers (seek, stop, skipping to another song).
    func cancel()
    /// Playback paused: stop the device where it is without losing what it buffers, if it can.
    func pause()
    func close()
    /// True when `write` only returns once the device has room, i.e. the device keeps real time (a sound card,
    /// a pipe reader). False for sinks that take data at any speed (null, httpd, an ALSA file PCM): with `sync`
    /// the engine paces them by its own clock.
    var keepsTime: Bool { get }
    /// The current song's tags changed (httpd sends them as ICY metadata). Default: ignored.
    func sendTags(_ tags: [Song.Tag])
    /// Called again and again while playback is paused and the device stays open; returns the seconds until the
    /// next call, or nil (the default) when the sink has nothing to do while paused. The httpd output feeds its
    /// listeners silence there, as MPD's does, so their players do not give up on a stream that went quiet.
    func whilePaused() -> Double?
}

extension AudioSink {
    public func sendTags(_ tags: [Song.Tag]) {}
    public func whilePaused() -> Double? { nil }
}

/// A failing output: the text is logged and the output disabled, the others keep playing.
public struct OutputError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// A hardware volume control (an ALSA mixer element). Blocking calls; made from a background task.
public protocol HardwareMixer: Sendable {
    /// 0…100, or nil when the element cannot be read.
    func volume() throws(OutputError) -> Int?
    func setVolume(_ percent: Int) throws(OutputError)
}
