import Testing
import PlayerCore
import ServerPorts
@testable import Library

/// Playlist files in the music directory as MPD's playlist plugins read them; the differential script
/// `music_playlists` compares whole answers with MPD's, these pin the parsers' edge cases.
@Suite struct MusicPlaylistFileTests {
    func parse(_ text: String, _ suffix: String) -> [MusicPlaylistFile.Parsed] { MusicPlaylistFile.parse(Array(text.utf8), suffix: suffix) }

    @Test func extendedM3uGivesTheNextEntryItsDurationAndName() {
        let songs = parse("#EXTM3U\r\n#EXTINF:123,Someone - A Title\r\na.flac\r\n#EXTINF:-1,Radio\nhttp://x/s\n"
                          + "#EXTINF:0,\nb.flac\n#EXTINF:junk\nc.flac\n  \n# comment\nd.flac\n", "m3u")
        #expect(songs.map(\.uri) == ["a.flac", "http://x/s", "b.flac", "c.flac", "d.flac"])
        #expect(songs[0].duration == 123 && songs[0].tags == [Song.Tag("Name", "Someone - A Title")])
        #expect(songs[1].duration == 0 && songs[1].tags == [Song.Tag("Name", "Radio")])
        // Nothing known (0 s, no name) and malformed lines give nothing; the tag is for the next entry only.
        #expect(songs[2...].allSatisfy { $0.duration == nil && $0.tags.isEmpty })
    }

    @Test func plainM3uSkipsExtInfAsAComment() {
        let songs = parse("#EXTINF:5,Name\na.flac\n", "m3u8")
        #expect(songs.map(\.uri) == ["a.flac"] && songs[0].duration == nil && songs[0].tags.isEmpty)
    }

    @Test func plsReadsFileTitleAndPositiveLength() {
        let songs = parse("[playlist]\nNumberOfEntries=3\nFile1=a.ogg\nTitle1=T\nLength1=5\nFile2=b.ogg\nLength2=-1\n"
                          + "File3=http://x/c\nVersion=2\n", "pls")
        #expect(songs.map(\.uri) == ["a.ogg", "b.ogg", "http://x/c"])
        #expect(songs[0].tags == [Song.Tag("Title", "T")] && songs[0].duration == 5 && songs[1].duration == nil)
    }

    @Test func xspfReadsLocationAndTags() {
        let songs = parse("<playlist><trackList><track><location>a&amp;b.ogg</location><title>T</title>"
                          + "<creator>C</creator><duration>1500</duration></track><track><title>none</title></track>"
                          + "</trackList></playlist>", "xspf")
        #expect(songs.map(\.uri) == ["a&b.ogg"])
        // MPD 0.23's XSPF plugin reads no duration; tags come in the file's order.
        #expect(songs[0].tags == [Song.Tag("Title", "T"), Song.Tag("Artist", "C")] && songs[0].duration == nil)
        let ordered = parse("<trackList><track><creator>C</creator><location>x.ogg</location><title>T</title></track>"
                            + "</trackList>", "xspf")
        // Tags before the location are not read (checked against MPD: differential script music_playlists).
        #expect(ordered.first?.tags == [Song.Tag("Title", "T")])
    }

    @Test func asxReadsRefAndTagsInAnyCase() {
        let songs = parse("<ASX version=\"3.0\"><Entry><Title>T</Title><REF HREF=\"http://x/a.mp3\"/>"
                          + "<author>A</author></Entry><entry><title>no ref</title></entry></ASX>", "asx")
        #expect(songs.map(\.uri) == ["http://x/a.mp3"])
        #expect(songs[0].tags == [Song.Tag("Title", "T"), Song.Tag("Artist", "A")])
    }

    @Test func translateResolvesAsMPD() {
        func t(_ uri: String) -> PlaylistEntry.Location {
            MusicPlaylistFile.translate(uri, base: "Lists/sub", musicDirectory: "/music").location
        }
        func u(_ uri: String) -> String { MusicPlaylistFile.translate(uri, base: "Lists/sub", musicDirectory: "/music").uri }
        #expect(t("../../root.ogg") == .database("root.ogg"))
        // Backslashes are separators on Windows only.
        #expect(t("..\\a\\b.flac") == .database("Lists/sub/..\\a\\b.flac"))
        #expect(t("./x.flac") == .database("Lists/sub/x.flac"))
        #expect(t("/music/a/b.flac") == .database("a/b.flac") && u("/music/a/b.flac") == "/music/a/b.flac")
        #expect(t("file:///music/a.flac") == .database("a.flac") && u("file:///music/a.flac") == "file:///music/a.flac")
        #expect(t("FILE:///music/./a.flac") == .database("a.flac"))
        #expect(t("file://a.flac") == .unavailable)
        #expect(t("/elsewhere/a.flac") == .unavailable && u("/elsewhere/../a.flac") == "/a.flac")
        // `uri_squash_dot_segments`: a `..` with nothing before it is dropped; a trailing one leaves a slash.
        #expect(t("../../../out.flac") == .database("out.flac"))
        #expect(u("a/b/..") == "Lists/sub/a/")
        #expect(u("a//b") == "Lists/sub/a//b")
        #expect(t("http://example.com/a.mp3") == .url && u("http://example.com/./a.mp3") == "http://example.com/a.mp3")
        #expect(MusicPlaylistFile.translate("x.flac", base: "", musicDirectory: "/music").uri == "x.flac")
    }

    @Test func linesAreTextInputStreamLines() {
        // A BOM at the start only, one CR before each LF, a line cut at its NUL, no empty last line.
        let lines = MusicPlaylistFile.lines([0xEF, 0xBB, 0xBF] + Array("a\r\r\nb\0c\n\u{FEFF}d\n".utf8))
        #expect(lines == ["a\r", "b", "\u{FEFF}d"])
    }

    @Test func extendedM3uNeedsTheExactHeaderAndKeepsTheTagOverComments() {
        #expect(parse("#EXTM3U x\n#EXTINF:5,N\na.flac\n", "m3u")[0].tags.isEmpty)
        let songs = parse("\u{FEFF}#EXTM3U \t\r\n#EXTINF:5,N\n# comment\n\n  a.flac  \nb.flac\n", "m3u")
        #expect(songs.map(\.uri) == ["a.flac", "b.flac"])
        #expect(songs[0].tags == [Song.Tag("Name", "N")] && songs[0].duration == 5 && songs[1].tags.isEmpty)
    }

    @Test func plsFollowsMPDsParser() {
        // Names and values stripped, any case, entries sized by NumberOfEntries wherever it comes, empty files kept.
        let songs = parse("junk\n [PlayList] \n; comment\n FILE2 = b.ogg \nfile1=a.ogg\ntitle1= T \nLength1=7s\nLength2=+9\n"
                          + "File3=c.ogg\nNumberOfEntries = 2\n[other]\nFile2=x.ogg\n", "pls")
        #expect(songs.map(\.uri) == ["a.ogg", "b.ogg"])
        #expect(songs[0].tags == [Song.Tag("Title", "T")] && songs[0].duration == 7 && songs[1].duration == nil)
        #expect(parse("[playlist]\nFile1=a.ogg\n", "pls").isEmpty)
        #expect(parse("[playlist]\nNumberOfEntries=2\nFile2=b.ogg\n", "pls").map(\.uri) == ["", "b.ogg"])
    }

    @Test func cueTracksAreRangesOfTheirFile() {
        let songs = parse("""
            REM GENRE Jazz
            PERFORMER "Band"
            TITLE "Album"
            FILE "disc.flac" WAVE
              TRACK 01 AUDIO
                TITLE "One"
                INDEX 01 00:00:00
              TRACK 02 AUDIO
                TITLE "Two"
                PERFORMER "Guest"
                REM DATE 1999
                INDEX 00 01:00:00
                INDEX 01 01:02:37
            FILE "data.bin" BINARY
              TRACK 03 AUDIO
                TITLE "Ignored"

            """, "cue")
        #expect(songs.map(\.uri) == ["disc.flac", "disc.flac"])
        #expect(songs[0].tags == [Song.Tag("Genre", "Jazz"), Song.Tag("AlbumArtist", "Band"), Song.Tag("Album", "Album"),
                                  Song.Tag("Track", "01"), Song.Tag("Title", "One")])
        #expect(songs[1].tags.contains(Song.Tag("Artist", "Guest")) && songs[1].tags.contains(Song.Tag("Date", "1999")))
        // INDEX 00 of track 2 ends track 1, and so does its INDEX 01 after it (MPD reads the INDEX lines of a track
        // until one other than 00); INDEX 01 starts track 2 (frames are 1/75 s).
        #expect(songs[0].startMS == 0 && songs[0].endMS == 62493)
        #expect(songs[1].startMS == 62493 && songs[1].endMS == 0)
        #expect(songs[1].range == Queue.ClosedRangeSeconds(start: 62.493, end: nil))
        #expect(songs[0].range == Queue.ClosedRangeSeconds(start: 0, end: 62.493))
    }

    @Test func embeddedCueTracksAreOfTheSongItself() {
        let songs = MusicPlaylistFile.embeddedCue("FILE \"other.wav\" WAVE\r\nTRACK 1 AUDIO\r\nINDEX 01 00:00:00\r"
                                                  + "TRACK 2 AUDIO\nINDEX 01 00:10:00", file: "A/b c.flac")
        #expect(songs.map(\.uri) == ["b c.flac", "b c.flac"])
        #expect(songs[0].endMS == 10000 && songs[1].startMS == 10000)
    }
}
