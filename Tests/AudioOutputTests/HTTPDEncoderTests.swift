import AudioOutputs
import FFmpegDecoder
import Foundation
import PlayerCore
import Synchronization
import Testing

/// A 440 Hz sine in any of the pipeline's sample formats.
func sine(_ format: AudioFormat, seconds: Double) -> [UInt8] {
    let frames = Int(Double(format.sampleRate) * seconds)
    var bytes: [UInt8] = []
    bytes.reserveCapacity(frames * format.bytesPerFrame)
    for frame in 0..<frames {
        let value = 0.5 * sin(2 * Double.pi * 440 * Double(frame) / Double(format.sampleRate))
        for _ in 0..<format.channels {
            switch format.sampleFormat {
            case .s16: withUnsafeBytes(of: Int16(value * 32767).littleEndian) { bytes += $0 }
            case .s24: withUnsafeBytes(of: Int32(value * 8_388_607).littleEndian) { bytes += $0 }
            case .s32: withUnsafeBytes(of: Int32(value * 2_147_483_647).littleEndian) { bytes += $0 }
            case .float: withUnsafeBytes(of: Float(value).bitPattern.littleEndian) { bytes += $0 }
            }
        }
    }
    return bytes
}

/// Runs ffprobe on `file`: `codec_name`, `sample_rate`, `channels` of its audio stream, and the decoded length.
func probe(_ file: String) throws -> [String: String] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
    process.arguments = ["-v", "error", "-select_streams", "a:0", "-count_packets",
                         "-show_entries", "stream=codec_name,sample_rate,channels,nb_read_packets",
                         "-of", "default=noprint_wrappers=1", file]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    var fields: [String: String] = [:]
    for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
        let parts = line.split(separator: "=", maxSplits: 1)
        if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
    }
    return fields
}

/// Connects, asks for the stream and collects the whole response on a thread of its own.
func listen(port: Int) throws -> Collector {
    let client = try TestClient(port: port)
    client.send("GET / HTTP/1.1\r\n\r\n")
    let collector = Collector()
    Thread {
        while true {
            let bytes = client.readSome()
            if bytes.isEmpty { break }
            collector.bytes.withLock { $0 += bytes }
        }
        collector.finished.withLock { $0 = true }
    }.start()
    return collector
}

extension Array where Element == UInt8 {
    func indexOf(_ needle: [UInt8]) -> Int? {
        guard count >= needle.count else { return nil }
        return (0...(count - needle.count)).first { self[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}

/// The real encoders behind the httpd output: what a listener receives is a stream ffprobe recognises.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ffprobe")))
struct HTTPDEncoderTests {
    @Test(arguments: [(EncoderSettings.Codec.mp3, "mp3", "audio/mpeg"), (.opus, "opus", "audio/ogg"),
                      (.vorbis, "vorbis", "audio/ogg"), (.flac, "flac", "audio/flac"),
                      (.wave, "pcm_s16le", "audio/wav")])
    func aListenerReceivesADecodableStream(codec: EncoderSettings.Codec, name: String, mime: String) throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let sink = HTTPDSink(HTTPDSink.Settings(port: 0, bindToAddress: "127.0.0.1",
                                                encoder: EncoderSettings(codec: codec, bitrate: codec == .mp3 ? 128 : nil)),
                             encoders: FFmpegEncoderFactory())
        let format = try sink.open(.cd)
        let port = try #require(sink.port)
        let pcm = sine(format, seconds: 2)
        let chunks = frameChunks(pcm, frameSize: format.bytesPerFrame, sizesInFrames: [4410, 1000, 7])
        // One listener from the start, a second one joining halfway: the header, then whole frames or pages
        // from there on. Both read as they go, as players do.
        var listeners: [(collector: Collector, minimumPackets: Int)] = []
        for (index, chunk) in chunks.enumerated() {
            if index == 0 || index == chunks.count / 2 {
                listeners.append((try listen(port: port), index == 0 ? 20 : 8))
                #expect(waitUntil { sink.listenerCount == listeners.count })
            }
            try write(sink, chunk)
        }
        sink.close()
        for (number, listener) in listeners.enumerated() {
            #expect(waitUntil { listener.collector.finished.withLock { $0 } })
            let response = listener.collector.bytes.withLock { $0 }
            let split = try #require(response.indexOf([13, 10, 13, 10]))
            let head = String(decoding: response[..<split], as: UTF8.self)
            #expect(head.contains("Content-Type: \(mime)"))
            let file = dir.path("stream-\(number)")
            try Data(response[(split + 4)...]).write(to: URL(fileURLWithPath: file))
            let info = try probe(file)
            #expect(info["codec_name"] == name)
            #expect(info["sample_rate"] == String(format.sampleRate))
            #expect(info["channels"] == "2")
            #expect(Int(info["nb_read_packets"] ?? "") ?? 0 >= listener.minimumPackets, "\(info)")
        }
    }
}
