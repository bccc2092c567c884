import FakeNetEase
import Foundation
import MPDProtocol
import MPDServer
import NetEase
@testable import NetEaseLibrary
import PlayerCore
import Testing

/// The online search and the album covers of NetEase songs.
@Suite struct SearchAndCoverTests {
    @Test func searchReturnsTheCataloguesSongs() async throws {
        let fixture = try Fixture()
        #expect(fixture.catalog.searchesOnline)
        let songs = try await fixture.catalog.search(keywords: "夏日", limit: 30)
        // The album 夏日的回声 matches, so all its songs, in catalogue order.
        expectSongs(songs, fixture.demo.albums[3001]!.songIDs, in: fixture)
        let sent = try #require(fixture.server.requests(for: "/api/cloudsearch/pc").last)
        #expect(sent.params["s"] as? String == "夏日")
        #expect("\(sent.params["limit"] ?? "none")" == "30")
        // The limit is passed on.
        let two = try await fixture.catalog.search(keywords: "Полночь", limit: 2)
        expectSongs(two, [5_000_041, 5_000_042], in: fixture)
        #expect(try await fixture.catalog.search(keywords: "no such words anywhere", limit: 30).isEmpty)
    }

    @Test func repeatedSearchWithinAMinuteSendsOneRequest() async throws {
        let fixture = try Fixture()
        let first = try await fixture.catalog.search(keywords: "海", limit: 30)
        #expect(!first.isEmpty)
        let second = try await fixture.catalog.search(keywords: "海", limit: 30)
        #expect(second == first)
        #expect(fixture.server.requests(for: "/api/cloudsearch/pc").count == 1)
        // Other words are another question.
        _ = try await fixture.catalog.search(keywords: "海风", limit: 30)
        #expect(fixture.server.requests(for: "/api/cloudsearch/pc").count == 2)
    }

    @Test func searchOnlineFollowsTheSetting() throws {
        let fixture = try Fixture()
        var settings = fixture.settings
        settings.searchOnline = false
        let service = NetEaseService(client: fixture.client, settings: settings, cacheDirectory: fixture.root,
                                     logger: Fixture.quiet)
        #expect(!NetEaseCatalog(service: service, library: nil, logger: Fixture.quiet).searchesOnline)
    }

    // MARK: Covers

    /// The bytes the fake serves for an album's cover.
    static func coverBytes(_ fixture: Fixture, album: Int) throws -> [UInt8] {
        let path = fixture.server.media.cover(fixture.demo.albums[album]!.picID)
        return [UInt8](try #require(FileManager.default.contents(atPath: path)))
    }

    @Test func albumArtOfASongIsItsAlbumCoverCachedOnDisk() async throws {
        let fixture = try Fixture()
        let expected = try Self.coverBytes(fixture, album: 3001)
        #expect(expected.count > 100)
        let bytes = try await fixture.combined.albumArt(uri: "netease://song/5000011")
        #expect(bytes == expected)
        #expect(fixture.server.requests.filter { $0.method == "GET" }.count == 1)
        let file = fixture.coverDirectory + "/album-3001"
        #expect(FileManager.default.contents(atPath: file).map([UInt8].init) == expected)

        fixture.server.clearLog()
        #expect(try await fixture.combined.albumArt(uri: "netease://song/5000011") == expected)
        #expect(fixture.server.requests.isEmpty, "sent \(fixture.apiPaths)")

        // `readpicture`: the same picture with its type. Another song of the album needs its details, not the
        // picture again.
        let picture = try #require(try await fixture.combined.picture(uri: "netease://song/5000013"))
        #expect(picture.data == expected)
        #expect(picture.mimeType == "image/jpeg")
        #expect(fixture.server.requests.allSatisfy { $0.method != "GET" }, "fetched \(fixture.apiPaths)")
    }

    /// Songs listed or added before are known with their cover URL: only the picture is fetched.
    @Test func coverOfAListedSongNeedsOnlyThePicture() async throws {
        let fixture = try Fixture()
        _ = try await fixture.catalog.songs(for: "netease://album/3004")
        fixture.server.clearLog()
        let bytes = try await fixture.combined.albumArt(uri: "netease://song/5000043")
        #expect(bytes == (try Self.coverBytes(fixture, album: 3004)))
        #expect(fixture.server.requests.count == 1)
        #expect(fixture.server.requests.first?.method == "GET")
    }

    /// A cover NetEase does not deliver is an ACK, and nothing is cached for it.
    @Test func failedCoverDownloadIsNotCached() async throws {
        let fixture = try Fixture()
        _ = try await fixture.catalog.songs(for: "netease://song/5000011")
        let picID = fixture.demo.albums[3001]!.picID
        let token = try #require(Self.picToken(fixture, songID: 5_000_011))
        #expect(token.hasSuffix("=="))
        fixture.server.inject(.status(404), for: "/" + token + "/\(picID).jpg")
        let error = await ack { _ = try await fixture.combined.albumArt(uri: "netease://song/5000011") }
        #expect(error?.code == .system)
        #expect(error?.message == "NetEase: HTTP status 404")
        #expect(!FileManager.default.fileExists(atPath: fixture.coverDirectory + "/album-3001"))
        // Next time it is fetched again, and kept.
        #expect(try await fixture.combined.albumArt(uri: "netease://song/5000011") == (try Self.coverBytes(fixture, album: 3001)))
        #expect(FileManager.default.fileExists(atPath: fixture.coverDirectory + "/album-3001"))
    }

    /// The CDN path segment of a picture, read off the URL the fake's answers carry.
    static func picToken(_ fixture: Fixture, songID: Int64) -> String? {
        // http://127.0.0.1:PORT/<token>==/<id>.jpg
        fixture.service.knownCover(songID: songID)?.url.split(separator: "/").dropFirst(2).first.map(String.init)
    }

    @Test func mimeTypes() {
        #expect(NetEaseCatalog.mimeType([0xFF, 0xD8, 0xFF, 0xE0]) == "image/jpeg")
        #expect(NetEaseCatalog.mimeType([0x89, 0x50, 0x4E, 0x47, 0x0D]) == "image/png")
        #expect(NetEaseCatalog.mimeType(Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8)) == "image/webp")
        #expect(NetEaseCatalog.mimeType(Array("GIF89a".utf8)) == "image/gif")
        #expect(NetEaseCatalog.mimeType([1, 2, 3]) == nil)
        #expect(NetEaseCatalog.mimeType([]) == nil)
    }
}
