import Foundation
import PlayerCore
@testable import PlayerRuntime
import Testing
import AudioOutputs

/// The player end to end through the real alsa-lib code path: what the output receives must be exactly what
/// `ffmpeg -f s16le` decodes from the same sources (issue 4's "done when").
@Suite(.serialized) struct PlaybackTests {
    @Test func aSongReachesTheOutputSampleForSample() throws {
        let h = try PlaybackHarness()
        try h.make("a.flac", seconds: 1.5, extra: ["-sample_fmt", "s16"])
        try h.enqueue("a.flac")
        try h.send(.play(position: 0))
        #expect(h.waitUntilStopped())
        let expected = try h.reference("a.flac")
        #expect(h.recorded == expected, "\(firstDifference(h.recorded, expected))")
    }

    @Test func gaplessBetweenTwoSongsLosesOrAddsNothing() throws {
        let h = try PlaybackHarness()
        try h.make("a.flac", seconds: 1.3, frequency: 440, extra: ["-sample_fmt", "s16"])
        try h.make("b.wav", seconds: 0.7, frequency: 660)
        try h.enqueue("a.flac", "b.wav")
        try h.send(.play(position: 0))
        #expect(h.waitUntilStopped())
        let expected = try h.reference("a.flac") + h.reference("b.wav")
        #expect(h.recorded == expected, "\(firstDifference(h.recorded, expected))")
        #expect(h.partition.player.currentOrder == nil)
    }

    @Test func floatCodecsAreConvertedToTheOutputFormatLikeFFmpeg() throws {
        let h = try PlaybackHarness(format: AudioFormatMask("*:16:*")!)
        try h.make("a.mp3", seconds: 1.2)
        try h.make("b.ogg", seconds: 0.8, frequency: 880, extra: ["-c:a", "libvorbis"])
        try h.enqueue("a.mp3", "b.ogg")
        try h.send(.play(position: 0))
        #expect(h.waitUntilStopped())
        let expected = try h.reference("a.mp3") + h.reference("b.ogg")
        #expect(h.recorded == expected, "\(firstDifference(h.recorded, expected))")
    }

    @Test func seekStartsAtTheSampleOfThatTime() throws {
        let h = try PlaybackHarness()
        try h.make("a.flac", seconds: 3, extra: ["-sample_fmt", "s16"])
        try h.enqueue("a.flac")
        try h.send(.seek(position: 0, seconds: 2.0))
        #expect(h.waitUntilStopped())
        let expected = Array(try h.reference("a.flac")[(2 * 44100 * 4)...])
        #expect(h.recorded == expected, "\(firstDifference(h.recorded, expected))")
    }

    @Test func pauseAndResumeLoseNoSamples() throws {
        let h = try PlaybackHarness(paced: true)
        try h.make("a.flac", seconds: 2, extra: ["-sample_fmt", "s16"])
        try h.enqueue("a.flac")
        try h.send(.play(position: 0))
        usleep(600_000)
        try h.send(.pause(true))
        let elapsed = h.audio.progress(partition: PlayerState.defaultPartition)?.elapsed ?? 0
        #expect(elapsed > 0.3 && elapsed < 1.5, "elapsed \(elapsed) after 0.6 s")
        usleep(500_000)
        #expect(h.partition.player.state == .pause)
        let still = h.audio.progress(partition: PlayerState.defaultPartition)?.elapsed ?? 0
        #expect(abs(still - elapsed) < 0.2, "elapsed moved while paused: \(elapsed) → \(still)")
        try h.send(.pause(false))
        #expect(h.waitUntilStopped())
        let expected = try h.reference("a.flac")
        #expect(h.recorded == expected, "\(firstDifference(h.recorded, expected))")
    }

    @Test func aCorruptSongIsSkippedWithAnError() throws {
        let h = try PlaybackHarness()
        try h.make("a.flac", seconds: 0.5, extra: ["-sample_fmt", "s16"])
        try Data((0..<4000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }).write(to: URL(fileURLWithPath: h.directory + "/bad.mp3"))
        try h.make("c.wav", seconds: 0.5, frequency: 660)
        // bad.mp3 again at the end: c's start cleared the first failure's error (MPD's `PlayOrder` → `ClearError`),
        // the last one's stays after the stop.
        try h.enqueue("a.flac", "bad.mp3", "c.wav", "bad.mp3")
        try h.send(.play(position: 0))
        #expect(h.waitUntilStopped())
        // MPD's text: the file's path, then the cause.
        #expect(h.partition.player.error?.hasPrefix("Failed to decode \"\(h.directory)/bad.mp3\"; ") == true,
                "\(h.partition.player.error ?? "no error")")
        let expected = try h.reference("a.flac") + h.reference("c.wav")
        #expect(h.recorded == expected, "\(firstDifference(h.recorded, expected))")
    }

    @Test func consumeEmptiesTheQueueAsItPlays() throws {
        let h = try PlaybackHarness()
        try h.make("a.wav", seconds: 0.3)
        try h.make("b.wav", seconds: 0.3, frequency: 550)
        try h.enqueue("a.wav", "b.wav")
        try h.send(.setConsume(.on))
        try h.send(.play(position: 0))
        #expect(h.waitUntilStopped())
        #expect(h.partition.queue.count == 0)
    }

    @Test func singleModeStopsAtTheNextSongPaused() throws {
        let h = try PlaybackHarness()
        try h.make("a.wav", seconds: 0.3)
        try h.make("b.wav", seconds: 0.3, frequency: 550)
        try h.enqueue("a.wav", "b.wav")
        try h.send(.setSingle(.on))
        try h.send(.play(position: 0))
        #expect(h.wait { h.partition.player.state == .pause })
        #expect(h.partition.currentPosition == 1)
        usleep(200_000)
        #expect(h.recorded == (try h.reference("a.wav")))
    }

    @Test func repeatPlaysTheQueueAgain() throws {
        let h = try PlaybackHarness()
        try h.make("a.wav", seconds: 0.2)
        try h.enqueue("a.wav")
        try h.send(.setRepeat(true))
        try h.send(.play(position: 0))
        let one = try h.reference("a.wav").count
        #expect(h.wait { h.recorded.count >= 3 * one })
        try h.send(.stop)
    }

    @Test func randomPlaysEverySongOnce() throws {
        let h = try PlaybackHarness()
        for (i, name) in ["a.wav", "b.wav", "c.wav", "d.wav"].enumerated() {
            try h.make(name, seconds: 0.2, frequency: 300 + 100 * i)
        }
        try h.enqueue("a.wav", "b.wav", "c.wav", "d.wav")
        try h.send(.setRandom(true))
        try h.send(.play(position: nil))
        #expect(h.waitUntilStopped())
        #expect(h.recorded.count == (try h.reference("a.wav").count) * 4)
    }

    @Test func theSoftwareMixerScalesTheSamples() throws {
        let h = try PlaybackHarness()
        try h.make("a.wav", seconds: 0.5)
        try h.enqueue("a.wav")
        try h.send(.setVolume(50))
        try h.send(.play(position: 0))
        #expect(h.waitUntilStopped())
        let factor = (exp(50.0 / 25.0) - 1) / (54.5981500331 - 1)
        let source = samples16(try h.reference("a.wav"))
        let played = samples16(h.recorded)
        #expect(played.count == source.count)
        let worst = zip(source, played).map { abs(Double($0) * factor - Double($1)) }.max() ?? 0
        #expect(worst <= 1.5, "largest deviation \(worst)")
        #expect(source.map { abs(Int($0)) }.max()! > 1000)
    }

    @Test func replayGainFromTheTagsIsApplied() throws {
        var settings = PlaybackEngine.Settings()
        settings.replayGain = ReplayGainSettings(preamp: 0, missingPreamp: 0, limit: false)
        let h = try PlaybackHarness(settings: settings)
        try h.make("a.flac", seconds: 0.5, extra: ["-sample_fmt", "s16", "-metadata", "REPLAYGAIN_TRACK_GAIN=-6.00 dB",
                                                    "-metadata", "REPLAYGAIN_TRACK_PEAK=0.5"])
        try h.enqueue("a.flac")
        try h.send(.setReplayGainMode(.track))
        try h.send(.play(position: 0))
        #expect(h.waitUntilStopped())
        let factor = pow(10, -6.0 / 20)
        let source = samples16(try h.reference("a.flac"))
        let played = samples16(h.recorded)
        #expect(played.count == source.count)
        let worst = zip(source, played).map { abs(Double($0) * factor - Double($1)) }.max() ?? 0
        #expect(worst <= 1.5, "largest deviation \(worst)")
    }

    @Test func crossfadeOverlapsTheSongsByItsSeconds() throws {
        let h = try PlaybackHarness()
        // MPD crossfades only songs of 20 s or more.
        try h.make("a.wav", seconds: 21, frequency: 440)
        try h.make("b.wav", seconds: 21, frequency: 660)
        try h.enqueue("a.wav", "b.wav")
        try h.send(.setCrossfade(seconds: 1))
        try h.send(.play(position: 0))
        #expect(h.waitUntilStopped(timeout: 60))
        let a = samples16(try h.reference("a.wav")), b = samples16(try h.reference("b.wav"))
        let played = samples16(h.recorded)
        let second = 44100 * 2
        // 21 s + 21 s − 1 s of overlap.
        #expect(played.count == 41 * second)
        guard played.count == 41 * second else { return }
        let fade = 20 * second
        #expect(Array(played[..<fade]) == Array(a[..<fade]), "song a alone until its last second")
        #expect(Array(played[(fade + second)...]) == Array(b[second...]), "song b alone after its first second")
        // Inside the overlap the mix moves linearly from a to b.
        for offset in [second / 4, second / 2, second * 3 / 4] {
            let i = fade + offset
            let r = Double(offset) / Double(second)
            let expected = Double(a[i]) * (1 - r) + Double(b[offset]) * r
            #expect(abs(Double(played[i]) - expected) <= 2, "sample \(i): \(played[i]) vs \(expected)")
        }
    }

    @Test func aSongRangePlaysOnlyThatPart() throws {
        let h = try PlaybackHarness()
        try h.make("a.wav", seconds: 2)
        try h.enqueue("a.wav")
        let id = h.partition.queue.items[0].id
        try h.send(.setSongRange(id: id, start: 0.5, end: 1.25))
        try h.send(.play(position: 0))
        #expect(h.waitUntilStopped())
        let expected = Array(try h.reference("a.wav")[(22050 * 4)..<(55125 * 4)])
        #expect(h.recorded == expected, "\(firstDifference(h.recorded, expected))")
    }

    @Test func audioOutputFormatConvertsBeforeTheOutputs() throws {
        var settings = PlaybackEngine.Settings()
        settings.outputFormat = AudioFormatMask("48000:16:*")!
        let h = try PlaybackHarness(settings: settings)
        try h.make("a.wav", seconds: 1)
        try h.enqueue("a.wav")
        try h.send(.play(position: 0))
        #expect(h.waitUntilStopped())
        let expected = try PlaybackHarness.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-i",
                                                h.directory + "/a.wav", "-ar", "48000", "-f", "s16le", "-"])
        #expect(abs(h.recorded.count - expected.count) <= 4 * 64, "\(h.recorded.count) vs \(expected.count) bytes")
        #expect(h.audio.progress(partition: PlayerState.defaultPartition) == nil)
    }

    @Test func shortSongsAreNotCrossfaded() throws {
        let h = try PlaybackHarness()
        try h.make("a.wav", seconds: 3)
        try h.make("b.wav", seconds: 3, frequency: 660)
        try h.enqueue("a.wav", "b.wav")
        try h.send(.setCrossfade(seconds: 1))
        try h.send(.play(position: 0))
        #expect(h.waitUntilStopped())
        #expect(h.recorded == (try h.reference("a.wav") + h.reference("b.wav")))
    }

    @Test func mixRampOverlapsWhereTheLoudnessProfilesCross() throws {
        let h = try PlaybackHarness()
        try h.make("a.flac", seconds: 21, extra: ["-sample_fmt", "s16", "-metadata", "MIXRAMP_END=-20.00 1.00;-10.00 2.00"])
        try h.make("b.flac", seconds: 21, frequency: 660,
                   extra: ["-sample_fmt", "s16", "-metadata", "MIXRAMP_START=-20.00 0.50;-10.00 1.50"])
        try h.enqueue("a.flac", "b.flac")
        try h.send(.setCrossfade(seconds: 5))
        try h.send(.setMixrampDB(-15))
        try h.send(.setMixrampDelay(1))
        try h.send(.play(position: 0))
        #expect(h.waitUntilStopped(timeout: 60))
        // The end of a reaches −15 dB 1.5 s before its end, b's start 1.0 s in: 2.5 s − 1 s delay = 1.5 s overlap.
        #expect(samples16(h.recorded).count == Int(40.5 * 44100) * 2)
    }

    @Test func aPipeOutputFeedsItsCommandTheSamePCM() throws {
        let h = try PlaybackHarness()
        let file = h.directory + "/piped.raw"
        h.addOutput("pipe", plugin: "pipe") { PipeSink(command: "cat > '\(file)'") }
        try h.make("a.flac", seconds: 1, extra: ["-sample_fmt", "s16"])
        try h.enqueue("a.flac")
        try h.send(.play(position: 0))
        #expect(h.waitUntilStopped())
        let expected = try h.reference("a.flac")
        let piped = (try? [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))) ?? []
        #expect(piped == expected, "\(firstDifference(piped, expected))")
        #expect(h.recorded == expected)
    }

    @Test func aFifoOutputDeliversTheSamePCMToAReader() throws {
        let h = try PlaybackHarness()
        let path = h.directory + "/fifo"
        let collected = Collected()
        // Paced, as with MPD (a fifo takes data at any speed): the reader keeps up with real time.
        h.addOutput("fifo", plugin: "fifo", paced: true) { FifoSink(path: path) }
        try h.make("a.wav", seconds: 1)
        try h.enqueue("a.wav")
        // The reader is there before the output opens the fifo (which takes an existing one), with a pipe that holds
        // the whole song: a sink empties a full pipe nobody reads, as MPD's does, and a reader thread starved by a
        // loaded machine for a third of a second (the default 64 KiB) would lose samples.
        let expected = try h.reference("a.wav")
        #expect(mkfifo(path, 0o666) == 0)
        let fd = open(path, O_RDONLY | O_NONBLOCK)
        #expect(fd >= 0)
        defer { close(fd) }
        let setPipeSize: Int32 = 1031  // F_SETPIPE_SZ (a _GNU_SOURCE macro Glibc does not export)
        #expect(fcntl(fd, setPipeSize, 1 << 20) >= expected.count)
        // While the output has no writer open (before it opens the fifo, or between a close and a reopen) a read
        // returns 0, with nothing to read -1 (EAGAIN): either way the reader looks again until it has the whole song
        // or a minute has passed. Our read end keeps the pipe, and what was written into it, across a reopen.
        let reader = Thread {
            var buffer = [UInt8](repeating: 0, count: 65536)
            var total = 0
            let deadline = Date().addingTimeInterval(60)
            while total < expected.count, Date() < deadline {
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count > 0 {
                    collected.append(Data(buffer[0..<count]))
                    total += count
                } else if count == 0 || errno == EAGAIN || errno == EINTR {
                    usleep(1000)
                } else {
                    break
                }
            }
        }
        reader.start()
        try h.send(.play(position: 0))
        #expect(h.waitUntilStopped())
        let complete = h.wait() { collected.bytes.count >= expected.count }
        let got = collected.bytes
        // Counts and the first difference, not the arrays (a second of PCM makes a megabyte of failure message).
        #expect(complete, "the reader got \(got.count) of \(expected.count) bytes")
        #expect(got == expected ? true : false, "\(firstDifference(got, expected))")
    }

    @Test func aFailingOutputIsDisabledAndTheOthersKeepPlaying() throws {
        let h = try PlaybackHarness()
        h.addOutput("broken", plugin: "pipe") { PipeSink(command: "exit 0") }
        try h.make("a.flac", seconds: 2, extra: ["-sample_fmt", "s16"])
        try h.enqueue("a.flac")
        try h.send(.play(position: 0))
        #expect(h.waitUntilStopped())
        let outputs = h.store.partition(PlayerState.defaultPartition)?.outputs ?? []
        #expect(outputs.map { $0.output?.enabled } == [true, false])
        let expected = try h.reference("a.flac")
        #expect(h.recorded == expected, "\(firstDifference(h.recorded, expected))")
    }

    @Test func elapsedFollowsTheClockWhenPaced() throws {
        let h = try PlaybackHarness(paced: true)
        try h.make("a.wav", seconds: 3)
        try h.enqueue("a.wav")
        try h.send(.play(position: 0))
        usleep(1_000_000)
        let elapsed = h.audio.progress(partition: PlayerState.defaultPartition)?.elapsed ?? 0
        #expect(elapsed > 0.7 && elapsed < 1.4, "elapsed \(elapsed) after 1 s")
        let progress = h.audio.progress(partition: PlayerState.defaultPartition)
        #expect(progress?.format?.description == "44100:16:2")
        #expect(progress?.duration == 3)
        try h.send(.stop)
    }
}

/// Bytes gathered by a reader thread.
final class Collected: @unchecked Sendable {
    private let lock = NSLock()
    private var data = [UInt8]()
    func append(_ more: Data) { lock.lock(); data += more; lock.unlock() }
    var bytes: [UInt8] { lock.lock(); defer { lock.unlock() }; return data }
}

@Suite struct MixRampTests {
    @Test func interpolatesBetweenPairs() {
        #expect(MixRamp.overlap("-20.00 1.00;-10.00 2.00", at: -15) == 1.5)
        #expect(MixRamp.overlap("-20.00 1.00;-10.00 2.00", at: -10) == 2)
        #expect(MixRamp.overlap("-20.00 1.00;-10.00 2.00", at: -30) == 1)
        #expect(MixRamp.overlap("-20.00 1.00;-10.00 2.00", at: 0) == nil)
        #expect(MixRamp.overlap("garbage", at: -15) == nil)
    }
}
