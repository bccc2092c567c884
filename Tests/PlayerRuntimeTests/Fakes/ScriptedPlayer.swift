import Glibc
import Logging
import PlayerCore
import PlayerRuntime
import Testing

/// A player as the server builds it — the store, `AudioPlayer` and its engine — over scripted songs and
/// capturing outputs: the engine's threads run for real, without FFmpeg or ALSA.
final class ScriptedPlayer: Sendable {
    let decoders = ScriptedDecoders()
    let store: PlayerStore
    let audio: AudioPlayer

    init(settings: PlaybackEngine.Settings = .init()) {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        store = PlayerStore(state: PlayerState(maximumQueueLength: 64, volume: 100), logger: logger)
        audio = AudioPlayer(store: store, decoders: decoders, converters: NoConversion(), settings: settings,
                            locate: { ScriptedDecoders.location(of: $0) }, logger: logger)
    }

    deinit { audio.shutdown() }

    /// Adds an enabled output playing into a new capture. `paced`: the engine's clock paces it (real time);
    /// otherwise it takes the PCM as fast as the decoder makes it.
    @discardableResult
    func addOutput(_ name: String, id: Int = 0, paced: Bool = false, capture: Capture = Capture()) -> Capture {
        audio.addOutput(OutputDescription(id: id, name: name, plugin: "capture", paced: paced), enabled: true,
                        makeSink: { CapturingSink(capture) })
        return capture
    }

    /// Scripts the songs and appends them to the queue.
    func enqueue(_ songs: (uri: String, song: ScriptedSong)...) throws {
        for (uri, song) in songs { decoders.add(uri, song) }
        try store.send(.add(songs.map { Song(uri: $0.uri) }))
    }

    func send(_ action: Action) throws { try store.send(action) }

    var partition: PartitionState { store.partition(PlayerState.defaultPartition)! }
    var progress: PlaybackProgress? { audio.progress(partition: PlayerState.defaultPartition) }

    /// Playback ended and every one of `outputs` has closed its sink (it wrote everything it will write).
    func waitUntilStopped(_ outputs: Capture...) -> Bool {
        waitFor { self.partition.player.state == .stop && outputs.allSatisfy(\.isClosed) }
    }
}

/// Waits until `condition` holds, looking again every few milliseconds; false after `timeout` seconds. The
/// deadline is generous (a loaded machine): tests assert what happened, never how long it took.
func waitFor(timeout: Double = 60, _ condition: () -> Bool) -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: .milliseconds(Int(timeout * 1000)))
    while clock.now < deadline {
        if condition() { return true }
        usleep(2000)
    }
    return condition()
}

/// Where two PCM byte arrays first differ, in frames, for failure messages (a song's bytes are too many to print).
func difference(_ a: [UInt8], _ b: [UInt8], frameBytes: Int = ScriptedSong.format.bytesPerFrame) -> String {
    let count = min(a.count, b.count)
    var i = 0
    while i < count && a[i] == b[i] { i += 1 }
    if i == count && a.count == b.count { return "identical" }
    return "\(a.count / frameBytes) and \(b.count / frameBytes) frames, first difference at frame \(i / frameBytes)"
}

/// Expects `played == expected`, telling where they differ rather than printing them (a song's bytes are too many).
func expectSamePCM(_ played: [UInt8], _ expected: [UInt8], _ what: String = "PCM",
                   sourceLocation: SourceLocation = #_sourceLocation) {
    let same = played == expected
    #expect(same, "\(what): \(difference(played, expected))", sourceLocation: sourceLocation)
}

func samples16(_ bytes: some Collection<UInt8>) -> [Int16] {
    Array(bytes).withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
}
