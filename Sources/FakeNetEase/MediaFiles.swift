import Foundation

/// The audio and cover files the fake serves: a few seconds of sine per `DemoCatalog.mediaSeconds` entry, as MP3
/// and FLAC, its first `DemoCatalog.trialSeconds` as an MP3 trial clip, and small single-colour JPEG covers, all
/// made with the ffmpeg CLI once and kept in the data directory (a shared temporary one by default, so parallel
/// tests generate them once).
public struct MediaFiles: Sendable {
    public let directory: String
    static let coverCount = 6
    /// Bumped whenever the set of files changes, so an older complete directory is not taken for this one.
    static let version = "media-v2"

    public func audio(_ index: Int, flac: Bool) -> String {
        "\(directory)/tone\(index).\(flac ? "flac" : "mp3")"
    }

    /// The trial clip of `audio(index, …)`: what a trial URL serves (only `end - start` seconds).
    public func clip(_ index: Int) -> String {
        "\(directory)/clip\(index).mp3"
    }

    public func cover(_ pictureID: Int64) -> String {
        "\(directory)/cover\(Int(pictureID % Int64(Self.coverCount))).jpg"
    }

    /// Uses `<dataDirectory>/<version>` when complete, otherwise generates it (into a scratch directory renamed into
    /// place, so concurrent starts never see half-written files).
    public static func prepare(in dataDirectory: String) throws -> MediaFiles {
        let target = "\(dataDirectory)/\(version)"
        let files = MediaFiles(directory: target)
        let expected = DemoCatalog.mediaSeconds.indices.flatMap {
            [files.audio($0, flac: false), files.audio($0, flac: true), files.clip($0)]
        }
            + (0..<coverCount).map { files.cover(Int64($0)) }
        let manager = FileManager.default
        if expected.allSatisfy({ manager.fileExists(atPath: $0) }) { return files }
        try manager.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        let scratch = "\(dataDirectory)/.\(version)-\(UUID().uuidString)"
        try manager.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? manager.removeItem(atPath: scratch) }
        var arguments = ["-nostdin", "-hide_banner", "-loglevel", "error", "-y"]
        let tones = [440, 523, 659, 784]
        for (index, seconds) in DemoCatalog.mediaSeconds.enumerated() {
            arguments += ["-f", "lavfi", "-i",
                          "sine=frequency=\(tones[index % tones.count]):duration=\(seconds):sample_rate=44100"]
        }
        let colours = ["0xC0392B", "0x2980B9", "0x27AE60", "0x8E44AD", "0xF39C12", "0x16A085"]
        for colour in colours {
            arguments += ["-f", "lavfi", "-i", "color=c=\(colour):s=64x64:d=1"]
        }
        let staged = MediaFiles(directory: scratch)
        for index in DemoCatalog.mediaSeconds.indices {
            arguments += ["-map", "\(index):a", "-ac", "2", "-c:a", "libmp3lame", "-b:a", "128k",
                          "-metadata", "title=tone \(index)", staged.audio(index, flac: false)]
            arguments += ["-map", "\(index):a", "-ac", "2", "-c:a", "flac", staged.audio(index, flac: true)]
            arguments += ["-map", "\(index):a", "-t", "\(DemoCatalog.trialSeconds)", "-ac", "2", "-c:a", "libmp3lame",
                          "-b:a", "128k", "-metadata", "title=tone \(index) (trial)", staged.clip(index)]
        }
        for index in colours.indices {
            arguments += ["-map", "\(DemoCatalog.mediaSeconds.count + index):v", "-frames:v", "1",
                          staged.cover(Int64(index))]
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["ffmpeg"] + arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw FakeNetEaseError("ffmpeg failed: \(String(decoding: message, as: UTF8.self))")
        }
        // Another process may have finished first; its complete set wins.
        if expected.allSatisfy({ manager.fileExists(atPath: $0) }) { return files }
        try? manager.removeItem(atPath: target)
        if (try? manager.moveItem(atPath: scratch, toPath: target)) == nil,
           !expected.allSatisfy({ manager.fileExists(atPath: $0) }) {
            throw FakeNetEaseError("cannot place the media files in \(target)")
        }
        return files
    }
}
