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

    /// `TagSongFilter::Match`: a song that lacks the tag is decided by the first tag of the chain it has, so a
    /// present fallback that does not match is a miss (not a reason to try the next one or the empty-value rule).
    @Test func firstPresentFallbackDecides() throws {
        #expect(try !matches("(AlbumArtistSort == '')"))
        #expect(try matches("(AlbumArtistSort != '')"))
        #expect(try !matches("(AlbumArtist == '')"))
        let sorted = Song(uri: "b.flac", tags: [Song.Tag("Artist", "Alpha"), Song.Tag("ArtistSort", "Sorted")])
        func sortedMatches(_ filter: String) throws -> Bool {
            SongMatcher(try FilterParser.parse(arguments: [filter], foldCase: false)).matches(sorted)
        }
        // MPD's AlbumArtistSort chain is AlbumArtist, then Artist: ArtistSort is not on it.
        #expect(try sortedMatches("(AlbumArtistSort == 'Alpha')"))
        #expect(try !sortedMatches("(AlbumArtistSort == 'Sorted')"))
        #expect(try sortedMatches("(ArtistSort == 'Sorted')") && !sortedMatches("(ArtistSort == 'Alpha')"))
    }

    /// The queue scan (`matchingPositions`: byte tests made once, tags prefetched ahead) selects exactly the items
    /// the expression walk selects, on songs with missing tags, fallbacks, non-ASCII and long values.
    @Test func queueScanAgreesWithTheWalk() throws {
        let long = String(repeating: "Long value ", count: 20)
        let songs: [Song] = (0..<60).map { i in
            var tags: [Song.Tag] = []
            if i % 2 == 0 { tags.append(Song.Tag("Artist", ["Alpha", "Beta", "Ägypten", "beta"][i % 4])) }
            if i % 3 == 0 { tags.append(Song.Tag("AlbumArtist", i % 2 == 0 ? "Alpha" : "Gamma")) }
            if i % 5 == 0 { tags.append(Song.Tag("ArtistSort", "Sorted \(i % 2)")) }
            if i % 7 == 0 { tags.append(Song.Tag("Title", long + "\(i)")) }
            if i % 4 == 1 { tags.append(Song.Tag("Artist", "Straße")) }
            tags.append(Song.Tag("Album", i % 6 == 0 ? "" : "Album \(i % 3)"))
            return Song(uri: "d/\(i).flac", tags: tags)
        }
        let items = songs.enumerated().map { Queue.Item(id: $0.offset + 1, song: $0.element, version: 0) }
        let filters: [(String, Bool)] = [
            ("(Artist == 'Beta')", false), ("(Artist == 'beta')", true), ("(Artist != 'Alpha')", false),
            ("(Artist contains 'ÄGYP')", true), ("(Artist contains 'stra')", true),
            ("(Artist starts_with 'Be')", false),
            ("(Artist == '')", false), ("(Artist != '')", false), ("(AlbumArtist == 'Alpha')", false),
            ("(AlbumArtist == '')", false), ("(AlbumArtistSort == 'Gamma')", false), ("(AlbumArtistSort == '')", false),
            ("(ArtistSort == 'Beta')", false), ("(ArtistSort contains 'sorted')", true), ("(any == 'Album 1')", false),
            ("(any contains 'LONG VALUE')", true), ("(any != 'Alpha')", false), ("(Title contains 'value 14')", false),
            ("(Title starts_with '\(long)')", false), ("(Album == '')", false),
            ("((Artist == 'Alpha') AND (Album != 'Album 0'))", false),
            ("((AlbumArtistSort == 'Alpha') AND (any contains 'al'))", true),
            ("((Artist == 'Alpha') AND (file == 'd/0.flac'))", false),
        ]
        for (filter, fold) in filters {
            let matcher = SongMatcher(try FilterParser.parse(arguments: [filter], foldCase: fold))
            let walked = items.indices.filter { matcher.matches(items[$0].song) }
            let scanned = items.withUnsafeBufferPointer { matcher.matchingPositions($0) }
            #expect(scanned == walked, "\(filter)")
        }
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

    /// Values are compared as MPD compares them, byte by byte (`strcmp`, `strstr`, after folding for the
    /// case-insensitive forms), not as Swift compares strings (canonical equivalence, whole characters). ASCII
    /// values fold by lowering their letters as they are compared; others through the canonical form.
    @Test func valuesCompareAsBytes() throws {
        let song = Song(uri: "x.flac", tags: [Song.Tag("Title", "Cafe\u{301} Noir"), Song.Tag("Album", "ABC Mixed Case"),
                                            Song.Tag("Artist", "Ägypten")])
        func matches(_ filter: String, fold: Bool = false) throws -> Bool {
            SongMatcher(try FilterParser.parse(arguments: [filter], foldCase: fold)).matches(song)
        }
        // A decomposed é is not the precomposed one, and its base letter is found inside it.
        #expect(try !matches("(Title == 'Caf\u{E9} Noir')"))
        #expect(try matches("(Title == 'Cafe\u{301} Noir')"))
        #expect(try matches("(Title contains 'Cafe')") && matches("(Title starts_with 'Cafe')"))
        // Case-insensitive: ASCII values with any case of the needle; non-ASCII through folding.
        #expect(try matches("(Album contains 'c mIXED')", fold: true) && !matches("(Album contains 'c mIXED')"))
        #expect(try matches("(Album == 'abc mixed case')", fold: true) && matches("(Album starts_with 'aBc')", fold: true))
        #expect(try !matches("(Album contains 'mixed cases')", fold: true) && !matches("(Album == 'abc mixed')", fold: true))
        #expect(try matches("(Artist contains 'ÄGY')", fold: true) && matches("(Artist == 'ägypten')", fold: true))
        #expect(try !matches("(Artist contains 'ägy')"))
        #expect(try matches("(any contains 'noir')", fold: true) && !matches("(any contains 'noirs')", fold: true))
        #expect(try matches("(Album contains '')") && matches("(Genre contains '')"))
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
