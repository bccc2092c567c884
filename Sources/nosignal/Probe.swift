import ArgumentParser
import FFmpegDecoder
import Foundation
import NetEase
import NoSignalApp
import PlayerCore
import PlayerRuntime

/// `nosignal probe …`: MPD's `run_decoder` / `run_output` debugging tools, for users checking their setup.
struct Probe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe", abstract: "Check that a file decodes or that the configured outputs play.",
        subcommands: [Decode.self, Output.self])

    struct Decode: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "decode", abstract: "Print a file's format, tags and duration, then decode it to nowhere.")

        @Argument(help: "An audio file or an http(s) URL.")
        var file: String

        func run() async throws {
            let decoder: any AudioDecoding
            do { decoder = try FFmpegDecoderFactory(remote: CurlInputFactory()).open(file) } catch {
                FileHandle.standardError.write(Data("nosignal: \(error.message)\n".utf8))
                throw ExitCode(1)
            }
            print("audio: \(decoder.format)")
            if let duration = decoder.duration { print("duration: \(String(format: "%.3f", duration))") }
            if let bitrate = decoder.bitrate { print("bitrate: \(bitrate)") }
            let gain = decoder.replayGain
            for (name, value) in [("track gain", gain.trackGain), ("track peak", gain.trackPeak),
                                  ("album gain", gain.albumGain), ("album peak", gain.albumPeak)] {
                if let value { print("replaygain \(name): \(value)") }
            }
            if !file.contains("://"), let inspected = try? FFmpegInspector().inspect(path: file, includePicture: false) {
                for tag in inspected.tags { print("\(tag.name): \(tag.value)") }
            }
            let started = Date()
            var bytes = 0
            var buffer: [UInt8] = []
            do {
                while try decoder.read(into: &buffer) {
                    bytes += buffer.count
                    buffer.removeAll(keepingCapacity: true)
                }
            } catch {
                FileHandle.standardError.write(Data("nosignal: \(error.message)\n".utf8))
                throw ExitCode(1)
            }
            let seconds = decoder.format.seconds(ofBytes: bytes)
            let took = Date().timeIntervalSince(started)
            print(String(format: "decoded %d frames (%.3f s) in %.3f s (%.0f× real time)",
                         bytes / decoder.format.bytesPerFrame, seconds, took, took > 0 ? seconds / took : 0))
        }
    }

    struct Output: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "output", abstract: "Play a short 440 Hz tone through each enabled output of the configuration.")

        @OptionGroup var options: ConfigOptions

        @Option(help: "Seconds of tone per output.")
        var seconds: Double = 2

        func run() async throws {
            let config = try options.load()
            let outputs: [ConfiguredOutput]
            do { outputs = try ConfiguredOutput.all(config) } catch {
                FileHandle.standardError.write(Data("nosignal: \(error)\n".utf8))
                throw ExitCode(2)
            }
            var failures = 0
            for output in outputs where output.enabled {
                let name = "\"\(output.description.name)\" (\(output.description.plugin))"
                do {
                    try play(seconds: seconds, to: output)
                    print("\(name): played \(String(format: "%.1f", seconds)) s")
                } catch {
                    print("\(name): failed: \(error)")
                    failures += 1
                }
            }
            if failures > 0 { throw ExitCode(1) }
        }

        /// Writes the tone in tenths of a second, paced by the clock for outputs that do not keep time.
        private func play(seconds: Double, to output: ConfiguredOutput) throws {
            let source = output.description.format.apply(to: .cd)
            let sink = try output.makeSink()
            let accepted = try sink.open(source)
            defer { sink.close() }
            let converter = accepted == .cd ? nil : try FFmpegPCMConverterFactory().makeConverter(from: .cd, to: accepted)
            let frames = 4410
            let started = Date()
            var written = 0
            while Double(written) < seconds * 44100 {
                var pcm = [UInt8](repeating: 0, count: frames * 4)
                pcm.withUnsafeMutableBytes { raw in
                    let samples = raw.bindMemory(to: Int16.self)
                    for i in 0..<frames {
                        let value = Int16(8000 * sin(2 * Double.pi * 440 * Double(written + i) / 44100))
                        samples[2 * i] = value
                        samples[2 * i + 1] = value
                    }
                }
                if let converter {
                    var converted: [UInt8] = []
                    pcm.withUnsafeBytes { converter.convert($0, into: &converted) }
                    pcm = converted
                }
                var failure: OutputError?
                pcm.withUnsafeBytes { raw in
                    do throws(OutputError) { try sink.write(raw) } catch { failure = error }
                }
                if let failure { throw failure }
                written += frames
                if !sink.keepsTime {
                    let due = Double(written) / 44100 - Date().timeIntervalSince(started)
                    if due > 0 { Thread.sleep(forTimeInterval: due) }
                }
            }
            sink.drain()
        }
    }
}
