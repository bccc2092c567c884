import FakeNetEase
import Foundation
import NetEase
import Testing

/// QR, cellphone, guest and cookie login; 301 without login.
@Suite struct LoginTests {
    @Test func qrLoginAdvancesThroughItsStates() throws {
        let harness = try Harness()
        let key = try harness.weapi("/api/login/qrcode/unikey", ["type": 1, "noCheckToken": true])
        #expect(key.code == 200)
        let unikey = try #require(key.json.string("unikey"))
        #expect(harness.server.qrCodeKeys == [unikey])
        func check() throws -> Answer { try harness.weapi("/api/login/qrcode/client/login", ["key": unikey, "type": 1]) }
        #expect(try check().code == 801)
        harness.server.setQRState(.scanned, for: unikey)
        let scanned = try check()
        #expect(scanned.code == 802)
        #expect(scanned.json.string("nickname") == "demo_user")
        harness.server.setQRState(.confirmed, for: unikey)
        let confirmed = try check()
        #expect(confirmed.code == 803)
        let cookies = confirmed.setCookies
        let musicU = try #require(cookies["MUSIC_U"])
        let csrf = try #require(cookies["__csrf"])
        #expect(cookies["MUSIC_R_T"] != nil && cookies["MUSIC_A_T"] != nil)
        // The key is used up; the cookies log in.
        #expect(try check().code == 800)
        let status = try harness.weapi("/api/w/nuser/account/get", cookies: ["MUSIC_U": musicU, "__csrf": csrf])
        #expect(status.json.object("profile")?.string("nickname") == "demo_user")
        #expect(status.json.object("account")?.int("id") == 10000001)
        // QR cookies cannot be refreshed (NCM #1421).
        #expect(try harness.weapi("/api/login/token/refresh", cookies: ["MUSIC_U": musicU, "__csrf": csrf]).code == 400)
        #expect(try check().code == 800)
        #expect(try harness.weapi("/api/login/qrcode/client/login", ["key": "nonsense", "type": 1]).code == 800)
        #expect(try harness.weapi("/api/login/qrcode/unikey", ["type": 2]).code == 400)
    }

    @Test func qrLoginByTime() throws {
        // Wide windows (801 for 1 s, 802 until 3 s), so a loaded machine does not skip a state.
        let harness = try Harness { $0.qrMode = .automatic(scanAfter: 1, confirmAfter: 3) }
        let created = Date()
        let unikey = try #require(try harness.eapi("/api/login/qrcode/unikey", ["type": 3]).json.string("unikey"))
        func check(at seconds: Double) throws -> Int? {
            Thread.sleep(until: created.addingTimeInterval(seconds))
            return try harness.eapi("/api/login/qrcode/client/login", ["key": unikey, "type": 3]).code
        }
        #expect(try check(at: 0) == 801)
        #expect(try check(at: 2) == 802)
        #expect(try check(at: 3.2) == 803)
    }

    @Test func qrCodesExpire() throws {
        let harness = try Harness { $0.qrLifetime = 0.2 }
        let unikey = try #require(try harness.weapi("/api/login/qrcode/unikey", ["type": 1]).json.string("unikey"))
        Thread.sleep(forTimeInterval: 0.3)
        #expect(try harness.weapi("/api/login/qrcode/client/login", ["key": unikey, "type": 1]).code == 800)
    }

    @Test func loginStatusForNobodyGuestAndUser() throws {
        let harness = try Harness()
        let nobody = try harness.weapi("/api/w/nuser/account/get")
        #expect(nobody.code == 200)
        #expect(nobody.json["account"] is NSNull && nobody.json["profile"] is NSNull)
        let guest = try harness.weapi("/api/w/nuser/account/get", cookies: try harness.guestCookies())
        #expect(guest.json.object("account")?["anonimousUser"] as? Bool == true)
        #expect(guest.json["profile"] is NSNull)
        let user = try harness.weapi("/api/nuser/account/get", cookies: Harness.demoCookies)
        #expect(user.json.object("account")?["anonimousUser"] as? Bool == false)
        #expect(user.json.object("profile")?.int("vipType") == 11)
    }

    @Test func anonymousRegistrationChecksTheUserName() throws {
        let harness = try Harness()
        let good = try harness.weapi("/api/register/anonimous",
                                     ["username": NetEaseCrypto.anonymousUsername(deviceID: "NMUSIC")])
        #expect(good.code == 200)
        #expect(good.json.int("userId") != nil)
        #expect(good.setCookies["MUSIC_A"]?.isEmpty == false)
        let forged = Data("NMUSIC AAAAAAAAAAAAAAAAAAAAAA==".utf8).base64EncodedString()
        #expect(try harness.weapi("/api/register/anonimous", ["username": forged]).code == 400)
    }

    @Test func cellphoneLoginAndItsRiskAnswers() throws {
        let harness = try Harness()
        let password = NetEaseCrypto.md5Hex(Array(DemoCatalog.demoPassword.utf8))
        let ok = try harness.weapi("/api/w/login/cellphone",
                                   ["phone": DemoCatalog.demoPhone, "countrycode": "86", "password": password,
                                    "remember": "true"])
        #expect(ok.code == 200)
        #expect(ok.json.int("loginType") == 1)
        let cookies = ["MUSIC_U": try #require(ok.setCookies["MUSIC_U"]), "__csrf": try #require(ok.setCookies["__csrf"])]
        // Cellphone cookies refresh into new ones.
        let refreshed = try harness.weapi("/api/login/token/refresh", cookies: cookies)
        #expect(refreshed.code == 200)
        #expect(refreshed.setCookies["MUSIC_U"] != nil)
        #expect(try harness.weapi("/api/login/cellphone", ["phone": DemoCatalog.demoPhone, "password": "x"]).code == 502)
        #expect(try harness.weapi("/api/login/cellphone", ["phone": DemoCatalog.demoPhone, "captcha": "1234"]).code == 200)
        #expect(try harness.weapi("/api/login/cellphone", ["phone": "13800000001", "password": password]).code == 8821)
        let risk = try harness.weapi("/api/login/cellphone", ["phone": "13800000002", "password": password])
        #expect(risk.code == -462)
        #expect(risk.json.object("data")?.int("verifyType") == 50)
        #expect(try harness.weapi("/api/login/cellphone", ["phone": "13800000003", "password": password]).code == -460)
        #expect(try harness.weapi("/api/login/cellphone", ["phone": "19900000000", "password": password]).code == 501)
    }

    @Test func loginRequiredEndpointsAnswer301() throws {
        let harness = try Harness()
        let guest = try harness.guestCookies()
        for path in ["/api/song/like/get", "/api/v3/discovery/recommend/songs", "/api/v1/discovery/recommend/resource",
                     "/api/album/sublist", "/api/artist/sublist", "/api/v1/play/record", "/api/v1/cloud/get",
                     "/api/login/token/refresh"] {
            let none = try harness.weapi(path, ["uid": 10000001])
            #expect(none.code == 301, "\(path) without cookies")
            #expect(try harness.weapi(path, ["uid": 10000001], cookies: guest).code == 301, "\(path) as a guest")
            #expect(try harness.weapi(path, ["uid": 10000001],
                                      cookies: ["MUSIC_U": "FAKE_MUSIC_U_stale", "__csrf": "x"]).code == 301)
        }
        #expect(try harness.weapi("/api/song/like/get", ["uid": 10000001], cookies: Harness.demoCookies).code == 200)
    }

    @Test func guestsMaySearchButNobodyMayNot() throws {
        let harness = try Harness()
        #expect(try harness.weapi("/api/cloudsearch/pc", ["s": "夜", "type": 1]).code == 400)
        let guest = try harness.guestCookies()
        #expect(try harness.weapi("/api/cloudsearch/pc", ["s": "夜", "type": 1], cookies: guest).code == 200)
        #expect(try harness.weapi("/api/v3/song/detail", ["c": #"[{"id":5000011}]"#], cookies: guest).code == 200)
        let open = try Harness { $0.guestCookieRequired = false }
        #expect(try open.weapi("/api/cloudsearch/pc", ["s": "夜", "type": 1]).code == 200)
    }

    @Test func logoutEndsTheSession() throws {
        let harness = try Harness()
        let password = NetEaseCrypto.md5Hex(Array(DemoCatalog.demoPassword.utf8))
        let login = try harness.weapi("/api/login/cellphone", ["phone": DemoCatalog.demoPhone, "password": password])
        let cookies = ["MUSIC_U": login.setCookies["MUSIC_U"] ?? "", "__csrf": login.setCookies["__csrf"] ?? ""]
        #expect(try harness.weapi("/api/song/like/get", ["uid": 10000001], cookies: cookies).code == 200)
        let logout = try harness.weapi("/api/logout", cookies: cookies)
        #expect(logout.code == 200)
        #expect(logout.setCookies["MUSIC_U"] == "")
        #expect(try harness.weapi("/api/song/like/get", ["uid": 10000001], cookies: cookies).code == 301)
    }
}
