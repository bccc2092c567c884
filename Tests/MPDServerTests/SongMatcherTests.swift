import MPDProtocol
import PlayerCore
import Testing
@testable import MPDServer

/// MPD's in-memory matching rules (`src/song/*Filter.cxx`).
@Suite struct SongMatcherTests {
    static let song = Song(uri: "dir/a.flac", tags: [Song.Tag("Artist", "Alpha"), Song.Tag("Artist", "Beta"),
                                                     Song.Tag("Title", "Straße")],
                           lastModified: 1000, audioFormat: "44100:16:2")

    func matches(_ filter: String, fold: Bool = false, priority: UInt8 = 0) throws -> Bool {
        let expression = try FilterParser.parse(arguments: [filter], foldCase: fold)
        return SongMatcher(expression).matches(Self.song, priority: priority)
    }

    @Test func multiValueTagsMatchAnyAndNone() throws {
        #expect(try matches("(Artist == 'Beta')"))
        #expect(try !matches("(Artist != 'Beta')"))
        #expect(try matches("(Artist != 'Gamma')"))
    }

    @Test func emptyValueMeansAbsent() throws {
        #expect(try matches("(Album == '')"))
        #expect(try !matches("(Artist == '')"))
        #expect(try matches("(Artist != '')"))
    }

    @Test func fallbacks() throws {
        #expect(try matches("(AlbumArtist == 'Alpha')"))
        #expect(try matches("(AlbumArtistSort == 'Beta')"))
        #expect(try matches("(TitleSort == 'Straße')"))
    }

    @Test func operators() throws {
        #expect(try matches("(Title contains 'RAß')", fold: true))
        #expect(try !matches("(Title contains 'RAß')"))
        #expect(try matches("(Title starts_with 'Str')"))
        #expect(try matches("(Title =~ '^S.*e$')"))
        #expect(try matches("(Title !~ '^x')"))
        #expect(try matches("(file == 'dir/a.flac')"))
        #expect(try matches("(any == 'Beta')"))
        #expect(try matches("(base 'dir')") && !matches("(base 'di')"))
        #expect(try matches("(modified-since '1000')") && !matches("(modified-since '1001')"))
        #expect(try matches("(AudioFormat =~ '44100:*:2')") && !matches("(AudioFormat == '48000:16:2')"))
        #expect(try matches("(!(Artist == 'Gamma'))"))
        #expect(try matches("((Artist == 'Alpha') AND (Title == 'Straße'))"))
        #expect(try matches("(prio >= 3)", priority: 3) && !matches("(prio >= 3)", priority: 2))
    }
}

/// A song block printed from the song's packed tags: canonical names only, in stored order, within the mask, and
/// nothing of damaged bytes past the damage.
@Suite struct SongFormatterTests {
    @Test func printsPackedTagsInOrderWithinTheMask() {
        var bytes = PackedTags([Song.Tag("Album", "Kept"), Song.Tag("Title", "Line\nbreak"), Song.Tag("Artist", "A")])
            .bytes
        PackedTags.append(Array("NewTag".utf8), Array("x".utf8), to: &bytes)
        PackedTags.append(Array("genre".utf8), Array("lower-case name".utf8), to: &bytes)
        bytes += [5] + Array("Title".utf8) + [0xFF, 0xFF, 0x7F] + Array("cut".utf8)
        let song = Song(uri: "a.flac", packedTags: PackedTags(bytes: bytes), duration: 1.5)
        var all = Response()
        SongFormatter.write(song, mask: .all, into: &all)
        #expect(all.text == """
            file: a.flac
            Album: Kept
            Title: Line break
            Artist: A
            Genre: lower-case name
            Time: 2
            duration: 1.500

            """)
        var some = Response()
        SongFormatter.write(song, mask: TagMask([.artist]), into: &some)
        #expect(some.text == "file: a.flac\nArtist: A\nTime: 2\nduration: 1.500\n")
    }
}
