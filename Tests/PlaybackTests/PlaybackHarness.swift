import ALSAOutput
import FFmpegDecoder
import Foundation
import TestTools
import Logging
import PlayerCore
import PlayerRuntime
import Testing

/// A player as the server builds it — the store, the engine, FFmpeg, and an ALSA output recording into a file
/// through alsa-lib's `file` plugin — with sources made by the ffmpeg command line.
final class PlaybackHarness: @unchecked Sendable {
    let directory: String
    let store: PlayerStore
    let audio: AudioPlayer
    let recording: String

    /// `paced`: play in real time (the engine's clock, as for a sound card); otherwise as fast as it decodes.
    init(paced: Bool = false, format: AudioFormatMask = AudioFormatMask(), softwareMixer: Bool = true,
         settings: PlaybackEngine.Settings = .init()) throws {
        directory = NSTemporaryDirectory() + "nosignal-playback-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        recording = directory + "/out.raw"
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        store = PlayerStore(state: PlayerState(maximumQueueLength: 64, volume: 100), logger: logger)
        let directory = self.directory
        audio = AudioPlayer(store: store, decoders: FFmpegDecoderFactory(), converters: FFmpegPCMConverterFactory(),
                            settings: settings, locate: { directory + "/" + $0.uri }, logger: logger)
        let config = "pcm.out { type file; slave.pcm { type null }; file \"\(recording)\"; format \"raw\" }"
        audio.addOutput(OutputDescription(id: 0, name: "recorder", plugin: "alsa", format: format,
                                          softwareMixer: softwareMixer, paced: paced),
                        enabled: true, makeSink: { ALSASink(device: "out", configText: config) })
    }

    /// Adds another output to the default partition.
    func addOutput(_ name: String, plugin: String, paced: Bool = false, makeSink: @escaping SinkFactory) {
        audio.addOutput(OutputDescription(id: 1, name: name, plugin: plugin, paced: paced), enabled: true,
                        makeSink: makeSink)
    }

    deinit {
        audio.shutdown()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Makes `name` with the ffmpeg CLI: a sine of `seconds` at `frequency`, stereo 44.1 kHz unless `extra` says.
    @discardableResult
    func make(_ name: String, seconds: Double = 1, frequency: Int = 440, extra: [String] = []) throws -> String {
        let path = directory + "/" + name
        try Self.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-y", "-f", "lavfi", "-i",
                      "sine=frequency=\(frequency):duration=\(seconds):sample_rate=44100", "-ac", "2"] + extra + [path])
        return path
    }

    /// What `ffmpeg -f s16le` (or another raw format) decodes from `name`.
    func reference(_ name: String, format: String = "s16le") throws -> [UInt8] {
        try Self.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-i", directory + "/" + name,
                      "-f", format, "-"])
    }

    func enqueue(_ names: String...) throws {
        try store.send(.add(names.map { Song(uri: $0) }))
    }

    func send(_ action: Action) throws {
        try store.send(action)
    }

    var partition: PartitionState { store.partition(PlayerState.defaultPartition)! }

    /// Waits until `condition` holds, polling; false on timeout.
    @discardableResult
    func wait(timeout: Double = 20, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            usleep(10_000)
        }
        return condition()
    }

    /// Waits for the end of playback and for the output to have closed its file.
    func waitUntilStopped(timeout: Double = 20) -> Bool {
        let stopped = wait(timeout: timeout) { partition.player.state == .stop }
        usleep(200_000)
        return stopped
    }

    var recorded: [UInt8] { (try? [UInt8](Data(contentsOf: URL(fileURLWithPath: recording)))) ?? [] }

    @discardableResult
    static func run(_ arguments: [String]) throws -> [UInt8] { [UInt8](try CommandLineTool.run(arguments)) }
}

/// Where two PCM byte arrays first differ, in frames, for readable failures.
func firstDifference(_ a: [UInt8], _ b: [UInt8], frameBytes: Int = 4) -> String {
    let count = min(a.count, b.count)
    var i = 0
    while i < count && a[i] == b[i] { i += 1 }
    if i == count && a.count == b.count { return "identical" }
    return "lengths \(a.count / frameBytes) and \(b.count / frameBytes) frames, first difference at frame \(i / frameBytes)"
}

func samples16(_ bytes: [UInt8]) -> [Int16] {
    bytes.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
}
