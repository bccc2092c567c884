@testable import FFmpegDecoder
import Foundation
import PlayerCore
import Testing

/// Tags read by MPD's rules (`TagScanner`): files written by taggers we did not write (mutagen, ffmpeg), each
/// case one MPD 0.24.13 answered as expected here.
@Suite struct TagScanTests {
    /// A fresh directory with one silent file of each suffix, made by ffmpeg without any tag.
    static func blank(_ suffix: String, in directory: String) throws -> String {
        let path = "\(directory)/\(UUID().uuidString).\(suffix)"
        let codec: [String] = switch suffix {
        case "mp3": ["-c:a", "libmp3lame", "-write_id3v1", "0", "-id3v2_version", "0"]
        case "opus": ["-c:a", "libopus"]
        case "ogg": ["-c:a", "libvorbis"]
        case "m4a": ["-c:a", "aac"]
        case "wv": ["-c:a", "wavpack"]
        default: []
        }
        _ = try run(["ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "anullsrc=r=44100:cl=stereo", "-t", "0.5",
                     "-map_metadata", "-1", "-fflags", "+bitexact", "-flags:a", "+bitexact"] + codec + [path])
        return path
    }

    /// Runs a Python program with Debian's mutagen; `PATH` is the file.
    static func mutagen(_ path: String, _ program: String) throws {
        _ = try run(["/usr/bin/python3", "-c", "import sys\nPATH = sys.argv[1]\n" + program, path])
    }

    static func directory() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nosignal-tagscan-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    static func tags(_ file: InspectedFile) -> [String] { file.tags.map { "\($0.name): \($0.value)" } }
    static func comments(_ file: InspectedFile) -> [String] { file.comments.map { "\($0.key): \($0.value)" } }

    /// libmpg123 gives the format (16-bit) and the ID3v2 tag, libid3tag reads it: every value of a multi-value frame,
    /// the MusicBrainz track id of a `UFID`, the `TXXX` frames as comments, in `scan_id3_tag`'s order.
    @Test func id3v24FramesInMPDsOrder() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = try Self.blank("mp3", in: directory)
        try Self.mutagen(path, """
            from mutagen.id3 import ID3, TIT2, TPE1, TMOO, UFID, TXXX, TSOT, TCON, TRCK
            t = ID3()
            t.add(TIT2(encoding=3, text=['  Title  ']))
            t.add(TPE1(encoding=1, text=['One', 'Two']))
            t.add(TMOO(encoding=3, text=['Calm', 'Dark']))
            t.add(TSOT(encoding=0, text=['Title, The']))
            t.add(TCON(encoding=3, text=['17', 'Jazz']))
            t.add(TRCK(encoding=3, text=['007/12']))
            t.add(UFID(owner='http://musicbrainz.org', data=b'mbtrack-1'))
            t.add(TXXX(encoding=3, desc='CATALOGNUMBER', text=['CAT-1']))
            t.add(TXXX(encoding=3, desc='MusicBrainz Album Id', text=['mbalbum-1']))
            t.save(PATH, v2_version=4)
            """)
        let file = try FFmpegInspector().inspect(path: path, includePicture: false)
        #expect(Self.tags(file) == ["Artist: One", "Artist: Two", "Title: Title", "Track: 7", "Genre: Rock",
                                    "Genre: Jazz", "Mood: Calm", "Mood: Dark", "TitleSort: Title, The",
                                    "MUSICBRAINZ_ALBUMID: mbalbum-1", "MUSICBRAINZ_TRACKID: mbtrack-1"])
        // The TXXX frames once from libmpg123's tag, and again from the generic scan (no APE tag: ID3).
        #expect(Self.comments(file) == ["CATALOGNUMBER: CAT-1", "MusicBrainz Album Id: mbalbum-1",
                                        "CATALOGNUMBER: CAT-1", "MusicBrainz Album Id: mbalbum-1"])
        #expect(file.audioFormat == "44100:16:2")
    }

    /// ID3v2.3 dates: libid3tag makes one `TDRC` of `TYER`, `TDAT` and `TIME`.
    @Test func id3v23YearAndDateBecomeOneDate() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = try Self.blank("mp3", in: directory)
        try Self.mutagen(path, """
            from mutagen.id3 import ID3, TIT2, TYER, TDAT, TORY
            t = ID3()
            t.add(TIT2(encoding=0, text=['Old']))
            t.save(PATH, v2_version=3)
            # mutagen upgrades on load; write the v2.3 frames by hand after the save
            import struct
            data = open(PATH, 'rb').read()
            size = 0
            for b in data[6:10]: size = size << 7 | b
            def frame(fid, text): body = b'\\x00' + text; return fid + struct.pack('>I', len(body)) + b'\\x00\\x00' + body
            frames = frame(b'TIT2', b'Old') + frame(b'TYER', b'1999') + frame(b'TDAT', b'3112') + frame(b'TORY', b'1970')
            frames += b'\\x00' * 64
            def syncsafe(n): return bytes([(n >> 21) & 0x7f, (n >> 14) & 0x7f, (n >> 7) & 0x7f, n & 0x7f])
            open(PATH, 'wb').write(b'ID3\\x03\\x00\\x00' + syncsafe(len(frames)) + frames + data[10 + size:])
            """)
        let file = try FFmpegInspector().inspect(path: path, includePicture: false)
        #expect(Self.tags(file) == ["Title: Old", "Date: 1999-12-31", "OriginalDate: 1970"])
    }

    /// No ID3v2 tag: libmpg123 finds no tag, so the generic scan reads the APEv2 tag (every value of a multi-value
    /// item); without one, an ID3v1 tag.
    @Test func apeTagThenID3v1WhenNoID3v2() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let ape = try Self.blank("mp3", in: directory)
        try Self.mutagen(ape, """
            from mutagen.apev2 import APEv2
            t = APEv2()
            t['Artist'] = 'A1\\x00A2'
            t['Album Artist'] = 'AA'
            t['Year'] = '2004'
            t['Catalog'] = 'X'
            t.save(PATH)
            """)
        let apeFile = try FFmpegInspector().inspect(path: ape, includePicture: false)
        // In the file's order (mutagen's).
        #expect(Self.tags(apeFile) == ["Date: 2004", "Artist: A1", "Artist: A2", "AlbumArtist: AA"])
        #expect(Self.comments(apeFile) == ["Catalog: X", "Year: 2004", "Artist: A1", "Artist: A2", "Album Artist: AA"])

        let v1 = try Self.blank("mp3", in: directory)
        var bytes = Array("TAG".utf8)
        for (field, width) in [("V1 Title", 30), ("V1 Artist", 30), ("V1 Album", 30), ("1987", 4), ("note", 28)] {
            bytes += Array(field.utf8) + [UInt8](repeating: 0, count: width - field.utf8.count)
        }
        bytes += [0, 5, 17]  // ID3v1.1: track 5, genre 17 (Rock)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: v1))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(bytes))
        try handle.close()
        let v1File = try FFmpegInspector().inspect(path: v1, includePicture: false)
        #expect(Self.tags(v1File) == ["Artist: V1 Artist", "Title: V1 Title", "Album: V1 Album", "Track: 5",
                                      "Date: 1987", "Genre: Rock", "Comment: note"])
    }

    /// An APEv2 tag beside an ID3v2 tag: the ID3 tag gives the tags; `readcomments` shows the APE items too.
    @Test func apeItemsAreCommentsBesideAnID3v2Tag() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = try Self.blank("mp3", in: directory)
        try Self.mutagen(path, """
            from mutagen.id3 import ID3, TIT2
            from mutagen.apev2 import APEv2
            t = ID3(); t.add(TIT2(encoding=3, text=['From ID3'])); t.save(PATH)
            a = APEv2(); a['Title'] = 'From APE'; a['Label'] = 'L'; a.save(PATH)
            """)
        let file = try FFmpegInspector().inspect(path: path, includePicture: false)
        #expect(Self.tags(file) == ["Title: From ID3"])
        #expect(Self.comments(file) == ["Label: L", "Title: From APE"])
    }

    /// Opus maps MPD's names before `xiph_tags` and leaves out values of 4 KiB or more; Vorbis the other way round.
    @Test func opusAndVorbisMapMovementApart() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let long = String(repeating: "x", count: 5000)
        for (suffix, expected) in [("opus", "Movement: II"), ("ogg", "MovementNumber: II")] {
            let path = try Self.blank(suffix, in: directory)
            let module = suffix == "opus" ? "oggopus import OggOpus as F" : "oggvorbis import OggVorbis as F"
            try Self.mutagen(path, """
                from mutagen.\(module)
                f = F(PATH); f['MOVEMENT'] = ['II']; f['LONGVALUE'] = ['\(long)']; f['Empty'] = ['']; f.save()
                """)
            let file = try FFmpegInspector().inspect(path: path, includePicture: false)
            #expect(Self.tags(file) == [expected], "\(suffix)")
            let keys = file.comments.map(\.key)
            #expect(keys.contains("LONGVALUE") == (suffix == "ogg"), "\(suffix)")
            #expect(keys.contains("Empty") || keys.contains("EMPTY"), "\(suffix)")
        }
    }

    /// MP4 through FFmpeg's dictionary as MPD's plugin maps it: the sort atoms by FFmpeg's names.
    @Test func mp4SortAtoms() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = try Self.blank("m4a", in: directory)
        try Self.mutagen(path, """
            from mutagen.mp4 import MP4
            f = MP4(PATH)
            f['\\xa9nam'] = ['Name']; f['sonm'] = ['Name, The']; f['soar'] = ['Artist, The']; f['soaa'] = ['AA, The']
            f['soal'] = ['Album, The']
            f.save()
            """)
        let file = try FFmpegInspector().inspect(path: path, includePicture: false)
        #expect(Self.tags(file) == ["Title: Name", "AlbumArtistSort: AA, The", "AlbumSort: Album, The",
                                    "ArtistSort: Artist, The", "TitleSort: Name, The"])
    }

    /// Raw AAC goes to MPD's faad plugin: no format, the length from counting the ADTS frames (1,024 samples each),
    /// and the tags from the generic scan (libid3tag: both values of `TPE1`, where FFmpeg's dictionary keeps one).
    @Test func aacThroughFaadsRules() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = "\(directory)/a.aac"
        _ = try run(["ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=r=44100:d=1.3", "-ac", "2",
                     "-map_metadata", "-1", "-fflags", "+bitexact", "-flags:a", "+bitexact", "-c:a", "aac", "-f", "adts", path])
        try Self.mutagen(path, """
            from mutagen.id3 import ID3, TIT2, TPE1
            t = ID3(); t.add(TIT2(encoding=3, text=['AAC'])); t.add(TPE1(encoding=3, text=['X', 'Y'])); t.save(PATH)
            """)
        let file = try FFmpegInspector().inspect(path: path, includePicture: false)
        #expect(Self.tags(file) == ["Artist: X", "Artist: Y", "Title: AAC"])
        #expect(file.audioFormat == nil)
        #expect(file.duration == 1.323)  // 57 frames × 1,024 samples at 44.1 kHz, as MPD 0.24.13 says
    }

    /// WavPack's plugin finds no tags; the generic scan reads its APEv2 tag, every value of a multi-value item.
    @Test func wavPackMultiValueItems() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = try Self.blank("wv", in: directory)
        try Self.mutagen(path, """
            from mutagen.apev2 import APEv2
            a = APEv2(); a['Genre'] = 'Jazz\\x00Blues'; a['Track'] = '03/10'; a.save(PATH)
            """)
        let file = try FFmpegInspector().inspect(path: path, includePicture: false)
        #expect(Self.tags(file) == ["Track: 3", "Genre: Jazz", "Genre: Blues"])
    }
}
