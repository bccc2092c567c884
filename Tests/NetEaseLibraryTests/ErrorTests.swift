import FakeNetEase
import Foundation
import Library
import MPDProtocol
import MPDServer
import NetEase
@testable import NetEaseLibrary
import PlayerCore
import Testing

/// NetEase's failures as the protocol shows them: `ACK [52@0] {cmd} NetEase: …`, never a crash or a hang; the
/// service's rules (back-off after rate limiting, guest mode after an expired login).
@Suite struct ErrorTests {
    @Test(arguments: [(FakeNetEaseServer.Fault.status(405), 405), (.status(406), 406), (.code(405), 405)])
    func rateLimitBacksOff(_ fault: FakeNetEaseServer.Fault, _ code: Int) async throws {
        let fixture = try Fixture()
        _ = try await fixture.account()
        fixture.server.inject(fault, for: "/api/cloudsearch/pc")
        let error = await ack { _ = try await fixture.catalog.search(keywords: "海", limit: 30) }
        #expect(error?.code == .system)
        #expect(error?.message.hasPrefix("NetEase: rate limited (\(code))") == true, "\(error?.message ?? "")")
        #expect(fixture.server.requests(for: "/api/cloudsearch/pc").count == 1)

        // During the back-off nothing goes out; callers get the same error at once.
        fixture.server.clearLog()
        let again = await ack { _ = try await fixture.catalog.search(keywords: "other words", limit: 30) }
        #expect(again?.message == error?.message)
        let listing = await ack { _ = try await fixture.strictEntries("NetEase/Charts") }
        #expect(listing?.code == .system)
        #expect(listing?.message.hasPrefix("NetEase: rate limited") == true)
        let added = await ack { _ = try await fixture.catalog.songs(for: "netease://album/3001") }
        #expect(added?.message.hasPrefix("NetEase: rate limited") == true)
        #expect(fixture.server.requests.isEmpty, "sent \(fixture.apiPaths)")
    }

    @Test func cheatingNamesTheCodeAndDoesNotBackOff() async throws {
        let fixture = try Fixture()
        _ = try await fixture.account()
        fixture.server.inject(.code(-460), for: "/api/toplist")
        let error = await ack { _ = try await fixture.strictEntries("NetEase/Charts") }
        #expect(error?.code == .system)
        #expect(error?.message.hasPrefix("NetEase: ") == true)
        #expect(error?.message.contains("-460") == true, "\(error?.message ?? "")")
        // Not a rate limit: the next request goes out, and succeeds.
        let charts = try await fixture.entries("NetEase/Charts")
        #expect(charts.count == 3)
        #expect(fixture.server.requests(for: "/api/toplist").count == 2)
    }

    @Test func expiredLoginFallsBackToGuestMode() async throws {
        let fixture = try Fixture()
        #expect(try await fixture.account() == .loggedIn(userID: 10_000_001, nickname: "demo_user"))
        #expect(fixture.server.requests(for: "/api/register/anonimous").isEmpty)
        fixture.server.inject(.code(301), for: "/api/v1/play/record")
        let error = await ack { _ = try await fixture.strictEntries("NetEase/Recent") }
        #expect(error?.code == .system)
        #expect(error?.message.hasPrefix("NetEase: login required (301)") == true, "\(error?.message ?? "")")
        #expect(try await fixture.account() == .guest)
        #expect(fixture.server.requests(for: "/api/register/anonimous").count == 1)
        #expect(fixture.client.cookies.value("MUSIC_A") != nil)
        // Guest mode from now on: the account's folders say why, without asking NetEase; public ones still work.
        fixture.server.clearLog()
        let liked = await ack { _ = try await fixture.strictEntries("NetEase/Liked") }
        #expect(liked?.message.contains("login required") == true)
        #expect(fixture.server.requests.isEmpty, "sent \(fixture.apiPaths)")
        let found = try await fixture.catalog.search(keywords: "海风", limit: 30)
        expectSongs(found, [5_000_012], in: fixture)
        // Which cookie that search carried: see `GuestModeTests.expiredLoginSearchesWithTheGuestCookie`.
    }

    @Test func malformedAnswer() async throws {
        let fixture = try Fixture()
        _ = try await fixture.account()
        fixture.server.inject(.malformedJSON, for: "/api/toplist")
        let error = await ack { _ = try await fixture.strictEntries("NetEase/Charts") }
        #expect(error?.code == .system)
        #expect(error?.message.hasPrefix("NetEase: malformed response") == true, "\(error?.message ?? "")")
        // Not remembered: the next listing asks again.
        #expect(try await fixture.entries("NetEase/Charts").count == 3)
    }

    @Test func otherCodesCarryNetEasesMessage() async throws {
        let fixture = try Fixture()
        _ = try await fixture.account()
        fixture.server.inject(.code(-447), for: "/api/album/sublist")
        let error = await ack { _ = try await fixture.strictEntries("NetEase/Albums") }
        #expect(error?.code == .system)
        #expect(error?.message == "NetEase: 服务器忙碌 (code -447)")
    }

    @Test func noAnswerWithinTheTimeout() async throws {
        let fixture = try Fixture(timeout: 2)
        _ = try await fixture.account()
        fixture.server.inject(.timeout, for: "/api/toplist")
        let started = ContinuousClock.now
        let error = await ack { _ = try await fixture.strictEntries("NetEase/Charts") }
        let elapsed = ContinuousClock.now - started
        #expect(error?.code == .system)
        #expect(error?.message == "NetEase: no answer within 2 s (timeout)")
        #expect(elapsed >= .milliseconds(1500), "gave up after \(elapsed)")
        // It gave up rather than hang: the timeout plus generous room for a loaded machine (the suite runs beside
        // the library tests, whose synchronous work can hold both of the concurrency pool's threads; 18.8 s seen).
        #expect(elapsed < .seconds(60), "took \(elapsed)")

        // Searches do not wait for another timeout meanwhile: local matches are the answer at once.
        fixture.server.clearLog()
        let started2 = ContinuousClock.now
        let skipped = await ack { _ = try await fixture.catalog.search(keywords: "海", limit: 30) }
        // Less than the timeout: it did not wait for NetEase (and sent nothing, below).
        #expect(ContinuousClock.now - started2 < .seconds(2))
        #expect(skipped?.code == .system)
        #expect(skipped?.message == "NetEase: no answer within 2 s (timeout)")
        #expect(fixture.server.requests.isEmpty, "sent \(fixture.apiPaths)")
        // Browsing still asks; once NetEase answers, searches go out again.
        #expect(try await fixture.entries("NetEase/Albums").count == 2)
        #expect(try await !fixture.catalog.search(keywords: "海", limit: 30).isEmpty)
        #expect(fixture.server.requests(for: "/api/cloudsearch/pc").count == 1)
    }

    @Test func unreachableServerIsANetworkError() async throws {
        let fixture = try Fixture()
        _ = try await fixture.account()
        fixture.server.stop()
        // Adding a folder needs NetEase: an ACK. Listing it is empty instead (`TreeTests`).
        let error = await ack { _ = try await fixture.combined.songsForQueue(uri: "NetEase/Charts") }
        #expect(error?.code == .system)
        #expect(error?.message.hasPrefix("NetEase: network error") == true, "\(error?.message ?? "")")
        let search = await ack { _ = try await fixture.catalog.search(keywords: "海", limit: 30) }
        #expect(search?.message == error?.message)
    }
}

/// Logged out: NetEase's guest mode.
@Suite struct GuestModeTests {
    @Test func guestRegistersAnonymouslyAndSearches() async throws {
        let fixture = try Fixture(loggedIn: false)
        #expect(try await fixture.account() == .guest)
        let registered = fixture.server.requests(for: "/api/register/anonimous")
        #expect(registered.count == 1)
        #expect(registered.first?.scheme == .weapi)
        #expect(fixture.client.cookies.value("MUSIC_A") != nil)
        // The fake answers public endpoints only with a guest cookie: the search carries it.
        let songs = try await fixture.catalog.search(keywords: "Полночь", limit: 30)
        expectSongs(songs, fixture.demo.albums[3004]!.songIDs, in: fixture)
        #expect(fixture.server.requests(for: "/api/cloudsearch/pc").first?.cookies["MUSIC_A"]
            == fixture.client.cookies.value("MUSIC_A"))
        // Checked once: a second question sends no second registration.
        #expect(try await fixture.account() == .guest)
        #expect(fixture.server.requests(for: "/api/register/anonimous").count == 1)
    }

    /// A cookie file whose login NetEase no longer knows: the account check finds it expired and registers a guest
    /// (NetEase wants `MUSIC_A` whenever there is no `MUSIC_U`). The search must then work as a
    /// guest: the stale `MUSIC_U` stays stored but is no longer sent, so the guest cookie is.
    @Test func expiredLoginSearchesWithTheGuestCookie() async throws {
        let fixture = try Fixture(loggedIn: false)
        try fixture.client.cookies.merge(setCookieHeaders: ["MUSIC_U=EXPIRED_TOKEN; Max-Age=15552000; Path=/"])
        #expect(try await fixture.account() == .guest)
        #expect(fixture.server.requests(for: "/api/register/anonimous").count == 1)
        let guest = try #require(fixture.client.cookies.value("MUSIC_A"))
        let songs = try await fixture.catalog.search(keywords: "海风", limit: 30)
        expectSongs(songs, [5_000_012], in: fixture)
        let sent = fixture.server.requests(for: "/api/cloudsearch/pc").first?.cookies
        #expect(sent?["MUSIC_A"] == guest)
        #expect(sent?["MUSIC_U"] == nil)
        #expect(fixture.client.cookies.value("MUSIC_U") == "EXPIRED_TOKEN")
    }

    @Test func accountFoldersNeedALogin() async throws {
        let fixture = try Fixture(loggedIn: false)
        for folder in ["Liked", "Daily", "Recent"] {
            let error = await ack { _ = try await fixture.strictEntries("NetEase/" + folder) }
            #expect(error?.code == .system)
            #expect(error?.message.hasPrefix("NetEase: login required") == true, "\(folder): \(error?.message ?? "")")
        }
        let daily = await ack { _ = try await fixture.catalog.songs(for: "netease://daily") }
        #expect(daily?.message.contains("login required") == true)
        // Public folders work as a guest.
        #expect(try await fixture.entries("NetEase/Charts").count == 3)
        #expect(try await fixture.entries("NetEase").count == 8)
    }

    @Test func guestSyncStoresNothing() async throws {
        let fixture = try Fixture(loggedIn: false)
        _ = try await fixture.sync()
        #expect(try await fixture.account() == .guest)
        #expect(try fixture.library.stats().songs == 0)
        #expect(try fixture.library.remoteChildren(of: "NetEase").isEmpty)
        #expect(fixture.server.requests(for: "/api/song/like/get").isEmpty)
        #expect(try await !fixture.sync())
    }
}
