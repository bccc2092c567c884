import ALSAOutput
import Foundation
import PlayerCore
import Testing

/// alsa-lib's `file` plugin over `null` records exactly what was written, with no sound card: a byte comparison
/// of the recording proves format setup, partial-write handling and state recovery.
@Suite struct ALSASinkTests {
    static func recorder(_ path: String) -> String {
        "pcm.out { type file; slave.pcm { type null }; file \"\(path)\"; format \"raw\" }"
    }

    func write(_ sink: some AudioSink, _ bytes: ArraySlice<UInt8>) throws {
        try bytes.withUnsafeBytes { buffer in try sink.write(buffer) }
    }

    @Test(arguments: AudioFormat.SampleFormat.allCases)
    func recordsExactlyTheWrittenFrames(sampleFormat: AudioFormat.SampleFormat) throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let file = dir.path("out.raw")
        let sink = ALSASink(device: "out", configText: Self.recorder(file))
        let format = AudioFormat(sampleRate: 44100, sampleFormat: sampleFormat, channels: 2)
        let opened = try sink.open(format)
        #expect(opened == format)
        #expect(!sink.keepsTime)
        let pcm = testPCM(format, frames: 30_000)
        for chunk in frameChunks(pcm, frameSize: format.bytesPerFrame, sizesInFrames: [1, 4096, 333, 17_000]) {
            try write(sink, chunk)
        }
        sink.close()
        let recorded = readFile(file)
        #expect(recorded.count == pcm.count)
        #expect(firstDifference(recorded, pcm) == nil)
    }

    @Test func pauseDrainAndResumeKeepEveryByte() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let file = dir.path("out.raw")
        let sink = ALSASink(device: "out", configText: Self.recorder(file))
        let format = AudioFormat.cd
        _ = try sink.open(format)
        let pcm = testPCM(format, frames: 60_000, seed: 7)
        let chunks = frameChunks(pcm, frameSize: 4, sizesInFrames: [20_000])
        try write(sink, chunks[0])
        sink.pause()
        sink.pause()
        try write(sink, chunks[1])
        sink.drain()
        try write(sink, chunks[2])
        sink.close()
        #expect(firstDifference(readFile(file), pcm) == nil)
    }

    @Test func cancelDropsOnlyWhatWasPending() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let file = dir.path("out.raw")
        let sink = ALSASink(device: "out", configText: Self.recorder(file))
        _ = try sink.open(.cd)
        let first = testPCM(.cd, frames: 10_000, seed: 1)
        let second = testPCM(.cd, frames: 10_000, seed: 2)
        try write(sink, first[...])
        sink.cancel()
        try write(sink, second[...])
        sink.close()
        let recorded = readFile(file)
        #expect(recorded.count % 4 == 0)
        #expect(recorded.count >= second.count)
        #expect(firstDifference(Array(recorded.suffix(second.count)), second) == nil)
        let kept = recorded.count - second.count
        #expect(firstDifference(Array(recorded.prefix(kept)), Array(first.prefix(kept))) == nil)
    }

    @Test func reopeningWithAnotherFormatStartsAFreshRecording() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let file = dir.path("out.raw")
        let sink = ALSASink(device: "out", configText: Self.recorder(file))
        _ = try sink.open(.cd)
        try write(sink, testPCM(.cd, frames: 1000)[...])
        let other = AudioFormat(sampleRate: 48000, sampleFormat: .s32, channels: 1)
        #expect(try sink.open(other) == other)
        let pcm = testPCM(other, frames: 4800, seed: 3)
        try write(sink, pcm[...])
        sink.close()
        #expect(firstDifference(readFile(file), pcm) == nil)
    }

    @Test func aDeviceRefusingTheFormatGetsTheBestItTakes() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let file = dir.path("out.raw")
        // The linear plugin converts between integer formats only: float is refused, 32-bit is next best.
        let config = """
            pcm.out { type linear; slave { pcm rec; format S16_LE } }
            pcm.rec { type file; slave.pcm { type null }; file "\(file)"; format "raw" }
            """
        let sink = ALSASink(device: "out", configText: config)
        let opened = try sink.open(AudioFormat(sampleRate: 44100, sampleFormat: .float, channels: 2))
        #expect(opened == AudioFormat(sampleRate: 44100, sampleFormat: .s32, channels: 2))
        sink.close()
    }

    @Test func aRealDeviceKeepsTimeUnlessTold() throws {
        // Without a card the only device is null: check the detection and the override on it.
        let config = "pcm.out { type null }"
        let sink = ALSASink(device: "out", configText: config)
        _ = try sink.open(.cd)
        #expect(!sink.keepsTime)
        sink.close()
        let forced = ALSASink(ALSASink.Settings(device: "out", keepsTime: true), configText: config)
        _ = try forced.open(.cd)
        #expect(forced.keepsTime)
        forced.close()
    }

    @Test func aMissingDeviceNamesItself() {
        let sink = ALSASink(device: "nosuchdevice", configText: Self.recorder("/tmp/never.raw"))
        #expect {
            _ = try sink.open(.cd)
        } throws: { error in
            (error as? OutputError)?.message.contains("\"nosuchdevice\"") == true
        }
        let system = ALSASink(ALSASink.Settings(device: "hw:7,0"))
        #expect {
            _ = try system.open(.cd)
        } throws: { error in
            (error as? OutputError)?.message.contains("\"hw:7,0\"") == true
        }
    }

    @Test func writingToAClosedSinkFails() {
        let sink = ALSASink(device: "out", configText: "pcm.out { type null }")
        #expect(throws: OutputError.self) { try write(sink, [0, 0, 0, 0][...]) }
    }

    @Test func theMixerOfAMissingCardSaysSo() {
        let mixer = ALSAMixer(ALSAMixer.Settings(device: "hw:7"))
        #expect {
            _ = try mixer.volume()
        } throws: { error in
            (error as? OutputError)?.message.contains("\"hw:7\"") == true
        }
        #expect(throws: OutputError.self) { try mixer.setVolume(50) }
    }

    @Test func theMixerDeviceFollowsTheCard() {
        #expect(ALSAMixer.Settings.defaultDevice(forPCM: "hw:1,0") == "hw:1")
        #expect(ALSAMixer.Settings.defaultDevice(forPCM: "plughw:CARD=Device,DEV=0") == "hw:CARD=Device")
        #expect(ALSAMixer.Settings.defaultDevice(forPCM: "default") == "default")
        #expect(ALSAMixer.Settings.defaultDevice(forPCM: "dmix") == "default")
    }
}
