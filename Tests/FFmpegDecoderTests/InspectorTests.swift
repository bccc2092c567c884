@testable import FFmpegDecoder
import Foundation
import PlayerCore
import Testing

/// The scanner reads FLAC metadata blocks itself instead of opening the file with libavformat; what it finds must
/// be exactly what the libavformat path finds.
@Suite struct InspectorTests {
    /// FLAC files of several shapes, made by the ffmpeg command line in a fresh directory.
    static func makeFLACFiles() throws -> (directory: String, files: [String]) {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("nosignal-inspector-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let ff = ["ffmpeg", "-nostdin", "-v", "error", "-y"]
        let sine = ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=1.234"]
        let shapes: [(String, [String])] = [
            ("s16-mono.flac", sine + ["-c:a", "flac"]),
            ("s16-tags.flac", sine + ["-metadata", "ARTIST=Somebody", "-metadata", "tracknumber=03/12",
                                      "-metadata", "Album Artist=Them", "-metadata", "DISCNUMBER=0",
                                      "-metadata", "comment=x", "-c:a", "flac"]),
            ("s24-96k.flac", ["-f", "lavfi", "-i", "aevalsrc=0.5*sin(2*PI*440*t)|0.4*sin(2*PI*660*t):s=96000:d=0.7",
                              "-c:a", "flac", "-sample_fmt", "s32"]),
            ("s16-6ch-48k.flac", ["-f", "lavfi", "-i", "sine=frequency=300:sample_rate=48000:duration=0.333",
                                  "-ac", "6", "-c:a", "flac"]),
            ("s16-8k.flac", ["-f", "lavfi", "-i", "sine=frequency=300:sample_rate=8000:duration=0.02",
                             "-map_metadata", "-1", "-fflags", "+bitexact", "-flags:a", "+bitexact", "-c:a", "flac"]),
            ("odd-length.flac", ["-f", "lavfi", "-i", "sine=frequency=300:sample_rate=22050:duration=3.0001",
                                 "-c:a", "flac"]),
        ]
        var files: [String] = []
        for (name, arguments) in shapes {
            let path = "\(directory)/\(name)"
            _ = try run(ff + arguments + [path])
            files.append(path)
        }
        return (directory, files)
    }

    @Test func nativeFLACMatchesLibavformat() throws {
        let (directory, files) = try Self.makeFLACFiles()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let inspector = FFmpegInspector()
        for path in files {
            let native = try #require(FFmpegInspector.inspectFLAC(path: path), "\(path) not read natively")
            let reference = try FFmpegInspector.inspectWithFFmpeg(path: path, includePicture: false, dictionaries: false)
            #expect(native.duration == reference.file.duration, "\(path)")
            #expect(native.audioFormat == reference.file.audioFormat, "\(path)")
            let inspected = try inspector.inspect(path: path, includePicture: false)
            #expect(inspected.duration == reference.file.duration && inspected.audioFormat == reference.file.audioFormat)
        }
    }

    @Test func nonFLACFilesAreNotReadNatively() throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("nosignal-inspector-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let wav = "\(directory)/a.wav"
        _ = try run(["ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=duration=0.1", wav])
        #expect(FFmpegInspector.inspectFLAC(path: wav) == nil)
        let truncated = "\(directory)/t.flac"
        #expect(FileManager.default.createFile(atPath: truncated, contents: Data("fLaC\0\0\0\u{22}abc".utf8)))
        #expect(FFmpegInspector.inspectFLAC(path: truncated) == nil)
    }
}
