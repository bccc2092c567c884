import Testing
import PlayerCore
@testable import Library

/// Playlist files in the music directory as MPD's playlist plugins read them; the differential script
/// `music_playlists` compares whole answers with MPD's, these pin the parsers' edge cases.
@Suite struct MusicPlaylistFileTests {
    func parse(_ text: String, _ suffix: String) -> [Song] { MusicPlaylistFile.parse(Array(text.utf8), suffix: suffix) }

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
        func t(_ uri: String) -> String? { MusicPlaylistFile.translate(uri, base: "Lists/sub", musicDirectory: "/music") }
        #expect(t("../../root.ogg") == "root.ogg")
        #expect(t("..\\a\\b.flac") == "Lists/a/b.flac")
        #expect(t("./x.flac") == "Lists/sub/x.flac")
        #expect(t("/music/a/b.flac") == "a/b.flac")
        #expect(t("file:///music/a.flac") == "a.flac")
        #expect(t("/elsewhere/a.flac") == nil)
        #expect(t("../../../out.flac") == nil)
        #expect(t("http://example.com/a.mp3") == "http://example.com/a.mp3")
    }
}
