@testable import FFmpegDecoder
import Foundation
import TestTools
import Testing

/// Lyrics read from files that real taggers wrote: eyeD3 and mutagen (ID3 `USLT`, `SYLT`), metaflac and
/// vorbiscomment (Vorbis comments), AtomicParsley (MP4 `©lyr`), ffmpeg (Opus comments, WavPack APEv2 items).
@Suite struct EmbeddedLyricsTests {
    typealias Line = EmbeddedLyrics.Line

    struct ToolError: Error, CustomStringConvertible {
        var description: String
    }

    /// A fresh directory, removed by the caller.
    static func makeDirectory() throws -> String {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("nosignal-lyrics-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Fails the test with the Debian package to install when `tool` is not on PATH (or at its absolute path).
    static func requireTool(_ tool: String, package: String) throws {
        let found = tool.hasPrefix("/") ? FileManager.default.isExecutableFile(atPath: tool)
            : (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
                .contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(tool)") }
        guard found else { throw ToolError(description: "\(tool) is not installed: apt-get install -y \(package)") }
    }

    /// Runs a tagger, with its error output in the failure.
    static func tag(_ arguments: [String]) throws {
        try CommandLineTool.run(arguments)
    }

    /// Half a second of sine in `name`'s format (by its suffix), made by ffmpeg with `extra` options.
    static func audio(_ directory: String, _ name: String, _ extra: [String] = []) throws -> String {
        let path = "\(directory)/\(name)"
        _ = try run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:duration=0.5"]
                    + extra + [path])
        return path
    }

    static let python = "/usr/bin/python3"

    /// Debian's Python with mutagen, which writes `SYLT` frames.
    static func requireMutagen() throws {
        try requireTool(python, package: "python3")
        do { try tag([python, "-c", "import mutagen.id3"]) } catch {
            throw ToolError(description: "Python's mutagen is not installed: apt-get install -y python3-mutagen")
        }
    }

    // MARK: - ID3

    @Test func usltByEyeD3() throws {
        try Self.requireTool("eyeD3", package: "eyed3")
        let directory = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let lyrics = "\(directory)/lyrics.txt"
        try "line one\nline two".write(toFile: lyrics, atomically: true, encoding: .utf8)

        // ID3v2.4 in UTF-8 (eyeD3's default), no description.
        let v24 = try Self.audio(directory, "v24.mp3")
        try Self.tag(["eyeD3", "--no-config", "-Q", "--add-lyrics", "\(lyrics)::eng", v24])
        #expect(FFmpegInspector.embeddedLyrics(path: v24) == [.text("line one\nline two")])

        // ID3v2.3 in UTF-16 with a description: libavformat names it `lyrics-Words-deu`.
        let v23 = try Self.audio(directory, "v23.mp3")
        try Self.tag(["eyeD3", "--no-config", "-Q", "--to-v2.3", "--encoding", "utf16",
                      "--add-lyrics", "\(lyrics):Words:deu", v23])
        #expect(FFmpegInspector.embeddedLyrics(path: v23) == [.text("line one\nline two")])
        // The names libavformat gives USLT frames: `lyrics-LANGUAGE`, `lyrics-DESCRIPTION-LANGUAGE`.
        #expect(FFmpegInspector.metadataForLyrics(path: v24)?.pairs.contains { $0.0 == "lyrics-eng" } == true)
        #expect(FFmpegInspector.metadataForLyrics(path: v23)?.pairs.contains { $0.0 == "lyrics-Words-deu" } == true)
    }

    @Test func lrcInUSLTKeepsItsStampsAndSeveralFramesComeInFileOrder() throws {
        try Self.requireTool("eyeD3", package: "eyed3")
        let directory = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let lrc = "[ar:Somebody]\n[00:01.00]Hello\n[00:02.50]World\n"
        try lrc.write(toFile: "\(directory)/song.lrc", atomically: true, encoding: .utf8)
        try "Zeile".write(toFile: "\(directory)/de.txt", atomically: true, encoding: .utf8)
        let mp3 = try Self.audio(directory, "lrc.mp3")
        try Self.tag(["eyeD3", "--no-config", "-Q", "--add-lyrics", "\(directory)/song.lrc::eng",
                      "--add-lyrics", "\(directory)/de.txt::deu", mp3])
        #expect(FFmpegInspector.embeddedLyrics(path: mp3) == [.text(lrc), .text("Zeile")])
    }

    /// Writes two `SYLT` frames (one in milliseconds, one in MPEG frames) and a `USLT` frame with mutagen.
    static func writeSYLT(_ path: String, encoding: Int, version: Int, lines: [Line]) throws {
        let script = """
            import json, sys
            from mutagen.id3 import ID3, SYLT, USLT
            path, encoding, version, lines = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), json.loads(sys.argv[4])
            tag = ID3(path)
            tag.add(SYLT(encoding=encoding, lang="eng", format=2, type=1, desc="timed",
                         text=[(text, ms) for ms, text in lines]))
            tag.add(SYLT(encoding=encoding, lang="deu", format=1, type=1, desc="frames", text=[("\\nIn frames", 38)]))
            tag.add(USLT(encoding=encoding, lang="eng", desc="", text="Plain text"))
            tag.save(v2_version=version)
            """
        let json = String(decoding: try JSONSerialization.data(withJSONObject: lines.map { [$0.milliseconds, $0.text] }),
                          as: UTF8.self)
        try tag([python, "-c", script, path, String(encoding), String(version), json])
    }

    @Test(arguments: [(encoding: 3, version: 4), (encoding: 1, version: 4), (encoding: 2, version: 4),
                      (encoding: 0, version: 4), (encoding: 1, version: 3), (encoding: 0, version: 3)])
    func syltByMutagen(encoding: Int, version: Int) throws {
        try Self.requireMutagen()
        let directory = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let mp3 = try Self.audio(directory, "sylt.mp3")
        // Latin-1 has no dash, note or emoji; the others get characters beyond the BMP (surrogate pairs in UTF-16).
        let second = encoding == 0 ? "Zweite Zeile, grün" : "Zweite Zeile – grün 🎵"
        // Writers put a new line before each text; 65280 ms is 00 00 FF 00, what unsynchronisation would touch.
        let written = [Line(milliseconds: 1000, text: "\nFirst line"), Line(milliseconds: 2500, text: "\n" + second),
                       Line(milliseconds: 4000, text: ""), Line(milliseconds: 65280, text: "Last\nline")]
        try Self.writeSYLT(mp3, encoding: encoding, version: version, lines: written)
        let expected = [Line(milliseconds: 1000, text: "First line"), Line(milliseconds: 2500, text: second),
                        Line(milliseconds: 4000, text: ""), Line(milliseconds: 65280, text: "Last\nline")]
        // The SYLT in MPEG frames is left out; the timed lyrics come before the text.
        #expect(FFmpegInspector.embeddedLyrics(path: mp3) == [.synchronized(expected), .text("Plain text")])
    }

    // MARK: - Vorbis comments, MP4, APEv2

    @Test func flacLyricsByMetaflac() throws {
        try Self.requireTool("metaflac", package: "flac")
        let directory = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let flac = try Self.audio(directory, "a.flac")
        try Self.tag(["metaflac", "--set-tag=LYRICS=First verse\nsecond line", flac])
        #expect(FFmpegInspector.embeddedLyrics(path: flac) == [.text("First verse\nsecond line")])
        // Repeated keys stay apart (libavformat would join them with `;`); a repeated text is given once.
        try Self.tag(["metaflac", "--set-tag=lyrics=[00:03.00]Timed", "--set-tag=UNSYNCED LYRICS=First verse\nsecond line",
                      flac])
        #expect(FFmpegInspector.embeddedLyrics(path: flac)
                == [.text("First verse\nsecond line"), .text("[00:03.00]Timed")])
    }

    @Test func oggUnsyncedLyricsByVorbiscomment() throws {
        try Self.requireTool("vorbiscomment", package: "vorbis-tools")
        let directory = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let ogg = try Self.audio(directory, "a.ogg", ["-c:a", "libvorbis"])
        try Self.tag(["vorbiscomment", "-a", "-t", "TITLE=Song", "-t", "UNSYNCEDLYRICS=Ogg lyrics, ä", ogg])
        #expect(FFmpegInspector.embeddedLyrics(path: ogg) == [.text("Ogg lyrics, ä")])
    }

    @Test func opusUnsyncedLyricsWithASpaceByFFmpeg() throws {
        let directory = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let opus = try Self.audio(directory, "a.opus", ["-c:a", "libopus", "-metadata", "UNSYNCED LYRICS=Opus\nlyrics"])
        #expect(FFmpegInspector.embeddedLyrics(path: opus) == [.text("Opus\nlyrics")])
    }

    @Test func m4aLyricsByAtomicParsley() throws {
        try Self.requireTool("AtomicParsley", package: "atomicparsley")
        let directory = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let m4a = try Self.audio(directory, "a.m4a", ["-c:a", "aac"])
        try Self.tag(["AtomicParsley", m4a, "--lyrics", "MP4 lyrics\nline two", "--overWrite"])
        #expect(FFmpegInspector.embeddedLyrics(path: m4a) == [.text("MP4 lyrics\nline two")])
        // libavformat's name of `©lyr`.
        #expect(FFmpegInspector.metadataForLyrics(path: m4a)?.pairs.contains { $0.0 == "lyrics" } == true)
    }

    @Test func apeLyricsInWavPackAndMP3() throws {
        let directory = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // libavformat reads WavPack's APEv2 tag (item `Lyrics`, key `Lyrics`)…
        let wv = try Self.audio(directory, "a.wv", ["-metadata", "Lyrics=WavPack lyrics"])
        #expect(FFmpegInspector.embeddedLyrics(path: wv) == [.text("WavPack lyrics")])
        #expect(FFmpegInspector.metadataForLyrics(path: wv)?.pairs.contains { $0.0 == "Lyrics" } == true)
        // … not an MP3's: that one is read here.
        try Self.requireMutagen()
        let mp3 = try Self.audio(directory, "ape.mp3", ["-id3v2_version", "0"])
        try Self.tag([Self.python, "-c", "import sys\nfrom mutagen.apev2 import APEv2\nt = APEv2()\n"
                      + "t['Lyrics'] = 'APE lyrics'\nt['Title'] = 'T'\nt.save(sys.argv[1])", mp3])
        #expect(FFmpegInspector.embeddedLyrics(path: mp3) == [.text("APE lyrics")])
    }

    @Test func filesWithoutLyrics() throws {
        let directory = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let tags = ["-metadata", "title=No lyrics", "-metadata", "comment=none here", "-metadata", "lyricist=Somebody"]
        for (name, codec) in [("a.mp3", "libmp3lame"), ("a.flac", "flac"), ("a.ogg", "libvorbis"), ("a.m4a", "aac"),
                              ("a.wav", "pcm_s16le"), ("a.opus", "libopus")] {
            let path = try Self.audio(directory, name, ["-c:a", codec] + tags)
            #expect(FFmpegInspector.embeddedLyrics(path: path) == [], "\(name)")
        }
        #expect(FFmpegInspector.embeddedLyrics(path: "\(directory)/missing.mp3") == [])
        #expect(FileManager.default.createFile(atPath: "\(directory)/text.mp3", contents: Data("not audio".utf8)))
        #expect(FFmpegInspector.embeddedLyrics(path: "\(directory)/text.mp3") == [])
        #expect(FFmpegInspector.embeddedLyrics(path: directory) == [])
    }

    // MARK: - Hand-made ID3 tags on a real MP3

    static func syncsafe(_ value: Int) -> [UInt8] {
        [UInt8(value >> 21 & 0x7F), UInt8(value >> 14 & 0x7F), UInt8(value >> 7 & 0x7F), UInt8(value & 0x7F)]
    }

    static func bigEndian(_ value: Int) -> [UInt8] {
        [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    /// An ID3v2 tag (v2.4 sizes are syncsafe, v2.3 plain) of the given frames, as (ID, format flags, content).
    static func id3(version: UInt8, flags: UInt8 = 0, _ frames: [(String, UInt8, [UInt8])]) -> [UInt8] {
        let body = frames.flatMap { id, format, content in
            Array(id.utf8) + (version == 4 ? syncsafe(content.count) : bigEndian(content.count)) + [0, format] + content
        }
        return Array("ID3".utf8) + [version, 0, flags] + syncsafe(body.count) + body
    }

    /// A SYLT frame's content in UTF-8, milliseconds: descriptor `d`, then the lines.
    static func sylt(_ lines: [(Int, String)]) -> [UInt8] {
        [3] + Array("eng".utf8) + [2, 1] + Array("d".utf8) + [0]
            + lines.flatMap { Array($0.1.utf8) + [0] + bigEndian($0.0) }
    }

    @Test func damagedSYLTGivesItsCompleteLinesAndNeverTraps() throws {
        let directory = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let audio = try [UInt8](Data(contentsOf: URL(fileURLWithPath:
            try Self.audio(directory, "plain.mp3", ["-id3v2_version", "0"]))))
        let path = "\(directory)/damaged.mp3"
        func lyrics(_ tag: [UInt8]) throws -> [EmbeddedLyrics] {
            try Data(tag + audio).write(to: URL(fileURLWithPath: path))
            return FFmpegInspector.embeddedLyrics(path: path)
        }
        let complete = Self.sylt([(1000, "\nOne"), (2000, "Two")])
        let expected: [EmbeddedLyrics] = [.synchronized([Line(milliseconds: 1000, text: "One"),
                                                         Line(milliseconds: 2000, text: "Two")])]
        #expect(try lyrics(Self.id3(version: 4, [("SYLT", 0, complete)])) == expected)
        // A third line cut short in its stamp, or in its text, is left out.
        let cutStamp = complete + Array("Three".utf8) + [0, 0, 0]
        #expect(try lyrics(Self.id3(version: 4, [("SYLT", 0, cutStamp)])) == expected)
        #expect(try lyrics(Self.id3(version: 4, [("SYLT", 0, complete + Array("Thr".utf8))])) == expected)
        // A frame that claims more bytes than the tag holds: nothing. A tag that claims more than the file holds (a
        // file cut short): its complete frames.
        var tooLong = Self.id3(version: 4, [("SYLT", 0, complete)])
        tooLong[17] = 0x7F
        #expect(try lyrics(tooLong) == [])
        var tagTooLong = Self.id3(version: 4, [("SYLT", 0, complete)])
        tagTooLong.replaceSubrange(6..<10, with: [0x07, 0x7F, 0x7F, 0x7F])
        try Data(tagTooLong).write(to: URL(fileURLWithPath: path))
        #expect(FFmpegInspector.embeddedLyrics(path: path) == expected)
        // MPEG-frame stamps, an unknown encoding, an odd-sized UTF-16 frame, a frame too short for its header.
        var frames = complete
        frames[4] = 1
        var encoding = complete
        encoding[0] = 7
        let oddUTF16: [UInt8] = [1] + Array("eng".utf8) + [2, 1, 0xFF, 0xFE, 0, 0, 0xFF, 0xFE, 0x41, 0, 0, 0, 0, 0, 0]
        for content in [frames, encoding, oddUTF16, [3, 0x65, 0x6E]] {
            #expect(try lyrics(Self.id3(version: 4, [("SYLT", 0, content)])) == [], "\(content)")
        }

        // Every prefix of the tag (then the audio), and every byte of it zeroed or set to FF: no trap.
        let tag = Self.id3(version: 4, [("TIT2", 0, [3] + Array("Title".utf8)), ("SYLT", 0, cutStamp)])
        for length in 0..<tag.count {
            _ = try lyrics(Array(tag[..<length]))
            try Data(tag[..<length]).write(to: URL(fileURLWithPath: path))
            #expect(FFmpegInspector.embeddedLyrics(path: path).count <= 1)
        }
        for index in 0..<tag.count {
            for value: UInt8 in [0x00, 0xFF] {
                var damaged = tag
                damaged[index] = value
                #expect(try lyrics(damaged).count <= 1)
            }
        }
    }

    @Test func unsynchronisationGroupingAndDataLengthIndicator() throws {
        let directory = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let audio = try [UInt8](Data(contentsOf: URL(fileURLWithPath:
            try Self.audio(directory, "plain.mp3", ["-id3v2_version", "0"]))))
        let path = "\(directory)/unsync.mp3"
        func lyrics(_ tag: [UInt8]) throws -> [EmbeddedLyrics] {
            try Data(tag + audio).write(to: URL(fileURLWithPath: path))
            return FFmpegInspector.embeddedLyrics(path: path)
        }
        // 65280 ms is 00 00 FF 00, unsynchronised 00 00 FF 00 00.
        let content = Self.sylt([(65280, "Late"), (1, "Early")])
        func unsynchronised(_ bytes: [UInt8]) -> [UInt8] {
            var result: [UInt8] = []
            for (index, byte) in bytes.enumerated() {
                result.append(byte)
                if byte == 0xFF, index + 1 == bytes.count || bytes[index + 1] == 0 || bytes[index + 1] >= 0xE0 {
                    result.append(0)
                }
            }
            return result
        }
        let expected: [EmbeddedLyrics] = [.synchronized([Line(milliseconds: 65280, text: "Late"),
                                                         Line(milliseconds: 1, text: "Early")])]
        // v2.4: the frame's own flag, with a data length indicator and a group byte in front of the content.
        let v24 = [0x77] + unsynchronised(Self.syncsafe(content.count) + content)
        #expect(try lyrics(Self.id3(version: 4, [("SYLT", 0x43, v24)])) == expected)
        // v2.4: only the tag's flag (mutagen reads it so).
        #expect(try lyrics(Self.id3(version: 4, flags: 0x80, [("SYLT", 0, unsynchronised(content))])) == expected)
        // v2.3: the whole tag, frame headers included (sizes count the bytes before unsynchronisation).
        let v23 = Self.id3(version: 3, [("SYLT", 0, content)])
        let v23Tag = Array(v23[0..<5]) + [0x80] + Self.syncsafe(unsynchronised(Array(v23[10...])).count)
            + unsynchronised(Array(v23[10...]))
        #expect(try lyrics(v23Tag) == expected)
        // Compressed or encrypted frames are skipped.
        #expect(try lyrics(Self.id3(version: 4, [("SYLT", 0x08, content)])) == [])
        #expect(try lyrics(Self.id3(version: 3, [("SYLT", 0x80, content)])) == [])
        // Without the flags the unsynchronised bytes are read as they are: a different stamp.
        #expect(try lyrics(Self.id3(version: 4, [("SYLT", 0, unsynchronised(content))])) != expected)
    }

    @Test func utf16ByteOrderMarks() throws {
        let directory = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let audio = try [UInt8](Data(contentsOf: URL(fileURLWithPath:
            try Self.audio(directory, "plain.mp3", ["-id3v2_version", "0"]))))
        let path = "\(directory)/utf16.mp3"
        // Big-endian marks; a string without a mark is read as the one before it; a little-endian mark; "é" and a
        // note (a surrogate pair) in UTF-16BE without marks.
        let withMarks: [UInt8] = [1] + Array("eng".utf8) + [2, 1, 0xFE, 0xFF, 0, 0x64, 0, 0]
            + [0xFE, 0xFF, 0, 0x0A, 0, 0x41, 0, 0] + Self.bigEndian(1000)
            + [0, 0x42, 0, 0] + Self.bigEndian(2000)
            + [0xFF, 0xFE, 0x43, 0, 0, 0] + Self.bigEndian(3000)
        let bigEndian: [UInt8] = [2] + Array("eng".utf8) + [2, 1, 0, 0]
            + [0, 0xE9, 0xD8, 0x3C, 0xDF, 0xB5, 0, 0] + Self.bigEndian(4000)
        try Data(Self.id3(version: 4, [("SYLT", 0, withMarks), ("SYLT", 0, bigEndian)]) + audio)
            .write(to: URL(fileURLWithPath: path))
        #expect(FFmpegInspector.embeddedLyrics(path: path) == [
            .synchronized([Line(milliseconds: 1000, text: "A"), Line(milliseconds: 2000, text: "B"),
                           Line(milliseconds: 3000, text: "C")]),
            .synchronized([Line(milliseconds: 4000, text: "é🎵")]),
        ])
    }

    @Test func lyricsKeys() {
        for key in ["lyrics", "LYRICS", "Lyrics", "lyrics-eng", "lyrics-Desc-deu", "lyrics-", "UNSYNCEDLYRICS",
                    "unsynced lyrics", "Unsynced Lyrics"] {
            #expect(FFmpegInspector.isLyricsKey(key), "\(key)")
        }
        for key in ["lyricist", "lyrics_eng", "syncedlyrics", "comment", "title", "unsyncedlyrics-eng", ""] {
            #expect(!FFmpegInspector.isLyricsKey(key), "\(key)")
        }
    }
}
