import Glibc
import Logging
import PlayerCore
import PlayerRuntime
import Synchronization
import Testing

/// The engine's threads with a scripted decoder and capturing outputs: every sample an output must receive is
/// known, so each test compares bytes, not impressions. Outputs are held inside a write where a test must act at
/// a known point of a song; nothing depends on how long anything takes.
@Suite struct PlaybackEngineTests {
    let format = ScriptedSong.format
    /// Bytes per second of the scripted songs (8 kHz, 16 bits, stereo).
    var second: Int { format.bytesPerSecond }

    // MARK: Gapless

    @Test func twoSongsReachEveryOutputBackToBackWithNothingLostOrAdded() throws {
        let player = ScriptedPlayer()
        let fast = player.addOutput("fast")
        let paced = player.addOutput("paced", id: 1, paced: true)
        // Odd lengths: neither song ends on a chunk border.
        let a = ScriptedSong(frames: 10_403, seed: 1), b = ScriptedSong(frames: 5_551, seed: 2)
        try player.enqueue(("a", a), ("b", b))
        try player.send(.play(position: 0))
        #expect(player.waitUntilStopped(fast, paced))
        let expected = a.pcm + b.pcm
        for output in [fast, paced] {
            expectSamePCM(output.bytes, expected)
            // One stream: the device was opened once, and neither drained nor cancelled at the border.
            #expect(output.events == [.open(format), .drain, .close])
        }
        #expect(player.partition.player.currentOrder == nil)
    }

    // MARK: Crossfade

    @Test func crossfadeOverlapsTheSongsByItsSecondsWithALinearMix() throws {
        let player = ScriptedPlayer()
        let output = player.addOutput("out")
        // MPD crossfades only songs of 20 s or more.
        let a = ScriptedSong(seconds: 21, seed: 1), b = ScriptedSong(seconds: 21, seed: 2)
        try player.enqueue(("a", a), ("b", b))
        try player.send(.setCrossfade(seconds: 1))
        try player.send(.play(position: 0))
        #expect(player.waitUntilStopped(output))
        expectCrossfade(output.bytes, a, b, overlap: 1)
    }

    @Test func crossfadeSetWhilePlayingReachesTheDecoder() throws {
        let player = ScriptedPlayer()
        let output = player.addOutput("out")
        let a = ScriptedSong(seconds: 21, seed: 3), b = ScriptedSong(seconds: 21, seed: 4)
        try player.enqueue(("a", a), ("b", b))
        // The output waits one second into the song: the decoder, at most a few seconds ahead, is far from the
        // fade point when the option changes.
        output.hold(at: second)
        try player.send(.play(position: 0))
        #expect(waitFor { output.isHeld })
        try player.send(.setCrossfade(seconds: 2))
        output.release()
        #expect(player.waitUntilStopped(output))
        expectCrossfade(output.bytes, a, b, overlap: 2)
    }

    @Test func mixRampOverlapsWhereTheLoudnessProfilesCross() throws {
        let player = ScriptedPlayer()
        let output = player.addOutput("out")
        var a = ScriptedSong(seconds: 21, seed: 5), b = ScriptedSong(seconds: 21, seed: 6)
        a.mixRampEnd = "-20.00 1.00;-10.00 2.00"
        b.mixRampStart = "-20.00 0.50;-10.00 1.50"
        try player.enqueue(("a", a), ("b", b))
        try player.send(.setCrossfade(seconds: 5))
        try player.send(.setMixrampDB(-15))
        try player.send(.setMixrampDelay(1))
        try player.send(.play(position: 0))
        #expect(player.waitUntilStopped(output))
        // a's end reaches −15 dB 1.5 s before its end, b's start 1.0 s in: 2.5 s − 1 s of delay = 1.5 s of overlap.
        expectCrossfade(output.bytes, a, b, overlap: 1.5)
    }

    /// `played` is `a`, then `overlap` seconds of `a`'s end mixed linearly into `b`'s start, then the rest of `b`.
    private func expectCrossfade(_ played: [UInt8], _ a: ScriptedSong, _ b: ScriptedSong, overlap: Double,
                                 sourceLocation: SourceLocation = #_sourceLocation) {
        let fade = ScriptedSong.frame(at: overlap)
        #expect(played.count == (a.frames + b.frames - fade) * format.bytesPerFrame,
                "\(played.count / format.bytesPerFrame) frames", sourceLocation: sourceLocation)
        guard played.count == (a.frames + b.frames - fade) * format.bytesPerFrame else { return }
        let start = (a.frames - fade) * format.bytesPerFrame
        let alone = Array(played[..<start]), aAlone = a.pcm(0..<a.frames - fade)
        expectSamePCM(alone, aAlone, "a alone until the fade", sourceLocation: sourceLocation)
        let after = Array(played[(start + fade * format.bytesPerFrame)...]), bAfter = b.pcm(fade..<b.frames)
        expectSamePCM(after, bAfter, "b alone after the fade", sourceLocation: sourceLocation)
        // Inside the overlap each sample is (1 − r)·a + r·b, r rising linearly from 0 to 1.
        let mixed = samples16(played[start..<(start + fade * format.bytesPerFrame)])
        var worst = 0.0
        for frame in 0..<fade {
            let r = Double(frame) / Double(fade)
            for channel in 0..<format.channels {
                let expected = Double(a.sample(frame: a.frames - fade + frame, channel: channel)) * (1 - r)
                    + Double(b.sample(frame: frame, channel: channel)) * r
                worst = max(worst, abs(Double(mixed[frame * format.channels + channel]) - expected))
            }
        }
        // Half a frame of ramp on the right channel and the rounding.
        #expect(worst <= 2, "largest deviation from the linear mix: \(worst)", sourceLocation: sourceLocation)
    }

    // MARK: Seek

    @Test func aSeekStartsAtTheSampleOfThatTime() throws {
        let player = ScriptedPlayer()
        let output = player.addOutput("out")
        let a = ScriptedSong(seconds: 3, seed: 1)
        try player.enqueue(("a", a))
        try player.send(.seek(position: 0, seconds: 2.25))
        #expect(player.waitUntilStopped(output))
        let expected = a.pcm(from: 2.25)
        expectSamePCM(output.bytes, expected)
    }

    @Test func aSeekWhilePlayingDropsTheRestAndGoesOnFromThatSample() throws {
        let player = ScriptedPlayer()
        let output = player.addOutput("out")
        let a = ScriptedSong(seconds: 5, seed: 1)
        try player.enqueue(("a", a))
        output.hold(at: second)
        try player.send(.play(position: 0))
        #expect(waitFor { output.isHeld })
        try player.send(.seek(position: 0, seconds: 3))
        output.release()
        #expect(player.waitUntilStopped(output))
        let played = output.bytes, tail = a.pcm(from: 3)
        // What was played before the seek, then the song from 3 s on.
        let before = played.count - tail.count
        #expect(before >= second && before % format.bytesPerFrame == 0, "\(before) bytes before the seek")
        guard before >= 0 else { return }
        let head = Array(played[..<before]), expectedHead = a.pcm(0..<before / format.bytesPerFrame)
        expectSamePCM(head, expectedHead, "before the seek")
        let after = Array(played[before...])
        expectSamePCM(after, tail, "after the seek")
        // The device dropped what it held right there, once.
        #expect(output.positions(of: .cancel) == [before])
    }

    // MARK: Pause

    @Test func pauseAndResumeLoseOrRepeatNoSample() throws {
        let player = ScriptedPlayer()
        let output = player.addOutput("out")
        let a = ScriptedSong(seconds: 3, seed: 1)
        try player.enqueue(("a", a))
        output.hold(at: second)
        try player.send(.play(position: 0))
        #expect(waitFor { output.isHeld })
        try player.send(.pause(true))
        output.release()
        #expect(waitFor { output.events.contains(.pause) })
        let paused = output.positions(of: .pause).first ?? -1
        #expect(paused >= second && paused < a.pcm.count, "paused after \(paused) bytes")
        #expect(player.partition.player.state == .pause)
        // `elapsed` is what the output has played.
        let elapsed = player.progress?.elapsed ?? -1
        #expect(abs(elapsed * Double(second) - Double(paused)) <= Double(format.bytesPerFrame),
                "elapsed \(elapsed) s, \(paused) bytes played")
        #expect(output.count == paused, "written while paused")
        try player.send(.pause(false))
        #expect(player.waitUntilStopped(output))
        let expected = a.pcm
        expectSamePCM(output.bytes, expected)
        #expect(output.events == [.open(format), .pause, .drain, .close])
    }

    // MARK: Options pushed to the engine

    @Test func theReplayGainModeIsTheOneInForceWhenASongOpens() throws {
        let player = ScriptedPlayer()
        let output = player.addOutput("out")
        let half = ReplayGainInfo(trackGain: 20 * log10(0.5))
        var a = ScriptedSong(seconds: 10, seed: 1), b = ScriptedSong(seconds: 1, seed: 2)
        a.replayGain = half
        b.replayGain = half
        try player.enqueue(("a", a), ("b", b))
        try player.send(.setReplayGainMode(.track))
        // Held a second into a, long before the decoder opens b (the pipe holds a few seconds at most).
        output.hold(at: second)
        try player.send(.play(position: 0))
        #expect(waitFor { output.isHeld })
        try player.send(.setReplayGainMode(.off))
        output.release()
        #expect(player.waitUntilStopped(output))
        let played = output.bytes
        #expect(played.count == a.pcm.count + b.pcm.count)
        guard played.count == a.pcm.count + b.pcm.count else { return }
        // a was opened with track gain (half), b after the change (unchanged).
        let scaled = samples16(played[..<a.pcm.count]), source = samples16(a.pcm)
        let worst = zip(scaled, source).map { abs(2 * Int($0) - Int($1)) }.max() ?? 0
        #expect(worst <= 1, "a at half: largest deviation \(worst) half-steps")
        let rest = Array(played[a.pcm.count...])
        expectSamePCM(rest, b.pcm, "b")
    }

    // MARK: Failures

    @Test func aSongThatCannotBeOpenedIsReportedAndTheNextPlays() throws {
        let player = ScriptedPlayer()
        let output = player.addOutput("out")
        let a = ScriptedSong(seconds: 0.5, seed: 1), c = ScriptedSong(seconds: 0.5, seed: 3)
        var bad = ScriptedSong(seconds: 0.5, seed: 2)
        bad.openError = DecoderError("cannot open", cause: "Invalid data found when processing input")
        try player.enqueue(("a", a), ("bad", bad), ("c", c), ("bad2", bad))
        try player.send(.play(position: 0))
        #expect(player.waitUntilStopped(output))
        // The skip to c cleared bad's error (MPD's `PlayOrder` → `ClearError`); bad2, the last, stops with its own.
        #expect(player.partition.player.error
                == "Failed to decode \"/music/bad2\"; Invalid data found when processing input")
        let expected = a.pcm + c.pcm
        expectSamePCM(output.bytes, expected)
    }

    /// b breaks 8 s in: the decoder (a few seconds ahead of the output at most) gets there only after the output
    /// has started b and the store has queued c.
    @Test func aSongThatFailsMidwayIsCutThereReportedAndTheNextPlays() throws {
        try expectFailureReported(bSeconds: 10, breakingAt: 8, paced: false)
    }

    /// b breaks at once, while the paced output still plays a: the decoder has pushed b's failure before the
    /// output starts b and the store queues c. The queued c must not take the failure's end marker back with it.
    @Test func aSongThatFailsBeforeTheOutputsReachItIsStillReported() throws {
        try expectFailureReported(bSeconds: 5, breakingAt: 0.1, paced: true)
    }

    /// Plays a, b (breaking `breakingAt` seconds in), c and a song that cannot be opened: the output gets a whole,
    /// then b from its start up to at most where it broke, then c whole; the last failure's error stays.
    func expectFailureReported(bSeconds: Double, breakingAt: Double, paced: Bool,
                               sourceLocation: SourceLocation = #_sourceLocation) throws {
        let player = ScriptedPlayer()
        let output = player.addOutput("out", paced: paced)
        let a = ScriptedSong(seconds: 0.5, seed: 1), c = ScriptedSong(seconds: 0.3, seed: 3)
        var b = ScriptedSong(seconds: bSeconds, seed: 2)
        b.failAfter = ScriptedSong.frame(at: breakingAt)
        // c's start clears b's error (MPD: `PlayOrder` → `PlayerControl::Play` → `ClearError`); a last song that
        // cannot be opened ends playback with an error that stays (`PlayNext` past the end stops, clearing nothing).
        var bad = ScriptedSong(seconds: 0.5, seed: 4)
        bad.openError = DecoderError("cannot open", cause: "Invalid data found when processing input")
        try player.enqueue(("a", a), ("b", b), ("c", c), ("bad", bad))
        try player.send(.play(position: 0))
        #expect(player.waitUntilStopped(output), sourceLocation: sourceLocation)
        #expect(player.partition.player.error
                == "Failed to decode \"/music/bad\"; Invalid data found when processing input",
                sourceLocation: sourceLocation)
        let played = output.bytes
        let middle = played.count - a.pcm.count - c.pcm.count
        let most = Int(breakingAt * Double(second)) + format.bytesPerFrame
        #expect(middle > 0 && middle <= most, "\(middle) bytes of b", sourceLocation: sourceLocation)
        guard middle > 0 else { return }
        expectSamePCM(played, a.pcm + b.pcm(0..<middle / format.bytesPerFrame) + c.pcm)
    }

    @Test func theEngineReportsSongBordersAndFailuresToItsOwner() throws {
        let decoders = ScriptedDecoders()
        // a is longer than the pipe holds: the decoder is still inside it when b is queued, and moves on to b itself.
        let a = ScriptedSong(seconds: 10, seed: 1), b = ScriptedSong(seconds: 0.5, seed: 2)
        var bad = ScriptedSong(seconds: 1, seed: 3)
        bad.openError = DecoderError("cannot open", cause: "No such file or directory")
        decoders.add("a", a)
        decoders.add("b", b)
        decoders.add("bad", bad)
        let reports = Mutex<[Action]>([])
        let engine = PlaybackEngine(decoders: decoders, converters: NoConversion(),
                                    locate: { ScriptedDecoders.location(of: $0) },
                                    report: { action in reports.withLock { $0.append(action) } },
                                    logger: Logger(label: "test"))
        defer { engine.shutdown() }
        let output = Capture()
        engine.attach(OutputRunner(description: OutputDescription(id: 0, name: "out", plugin: "capture", paced: false),
                                   enabled: true, makeSink: { CapturingSink(output) }))
        // Held inside a, so that b is queued before the output could reach a's end.
        output.hold(at: 4000)
        engine.start(PlaybackStart(token: 7, item: PlaybackItem(id: 1, song: Song(uri: "a"))))
        #expect(waitFor { output.isHeld })
        engine.queueNext(token: 7, PlaybackItem(id: 2, song: Song(uri: "b")), borderPause: false)
        output.release()
        #expect(waitFor { reports.withLock { $0.count } == 2 })
        #expect(reports.withLock { $0 } == [.engineStartedSong(token: 7, id: 2), .engineStopped(token: 7, error: nil)])
        #expect(waitFor { output.isClosed })
        let expected = a.pcm + b.pcm
        expectSamePCM(output.bytes, expected)

        engine.start(PlaybackStart(token: 8, item: PlaybackItem(id: 3, song: Song(uri: "bad"))))
        #expect(waitFor { reports.withLock { $0.count } == 3 })
        #expect(reports.withLock { $0.last }
                == .engineStopped(token: 8, error: "Failed to decode \"/music/bad\"; No such file or directory"))
    }

    @Test func anOutputThatCannotOpenIsDisabledAndTheOthersPlayOn() throws {
        let player = ScriptedPlayer()
        let good = player.addOutput("good")
        let bad = player.addOutput("bad", id: 1, capture: Capture(failOpen: OutputError("no such device")))
        let announced = Mutex(false)
        player.store.observe { changes in
            if changes.contains(Change(.outputs)) { announced.withLock { $0 = true } }
        }
        let a = ScriptedSong(seconds: 1, seed: 1), b = ScriptedSong(seconds: 0.5, seed: 2)
        try player.enqueue(("a", a), ("b", b))
        try player.send(.play(position: 0))
        #expect(player.waitUntilStopped(good))
        let expected = a.pcm + b.pcm
        expectSamePCM(good.bytes, expected)
        // Tried once, then left disabled (not tried again at the next song), and clients told.
        #expect(bad.events == [.open(format)])
        #expect(bad.bytes.isEmpty)
        #expect(player.store.partition(PlayerState.defaultPartition)?.outputs.map { $0.output?.enabled } == [true, false])
        #expect(announced.withLock { $0 })
    }

    @Test func anOutputWhoseWriteFailsIsDisabledAndTheOthersPlayOn() throws {
        let player = ScriptedPlayer()
        let good = player.addOutput("good")
        let bad = player.addOutput("bad", id: 1, capture: Capture(failWriteAt: 20_000))
        let a = ScriptedSong(seconds: 1, seed: 1), b = ScriptedSong(seconds: 0.5, seed: 2)
        try player.enqueue(("a", a), ("b", b))
        try player.send(.play(position: 0))
        #expect(player.waitUntilStopped(good))
        let expected = a.pcm + b.pcm
        expectSamePCM(good.bytes, expected)
        // The failed output got the start of a, no more, and its device was dropped and closed.
        let partial = bad.bytes
        #expect(!partial.isEmpty && partial.count <= 20_000, "\(partial.count) bytes")
        expectSamePCM(partial, Array(a.pcm.prefix(partial.count)))
        #expect(bad.events == [.open(format), .cancel, .close])
        #expect(player.store.partition(PlayerState.defaultPartition)?.outputs.map { $0.output?.enabled } == [true, false])
    }
}
