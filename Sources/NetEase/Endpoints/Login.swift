/// Login and session endpoints. QR login is the one that works reliably; cellphone
/// login is a last resort that NetEase often answers with a captcha demand (8821, -462).
public enum LoginEndpoints {
    /// `login_qr_key`: a key to show as a QR code. weapi `type:1` with `noCheckToken` (GMF, PYNCM).
    public struct QRKey: NetEaseEndpoint {
        public init() {}
        public var path: String { "/api/login/qrcode/unikey" }
        public var parameters: [String: JSONValue] { ["type": 1, "noCheckToken": true] }

        public struct Response: Decodable, Sendable, Equatable {
            public var unikey: String
            public init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: AnyKey.self).unwrappingData(unless: ["unikey"])
                unikey = try c.decode(String.self, forKey: AnyKey("unikey"))
            }
        }
    }

    /// `login_qr_check`: where the user is in scanning the key's QR code. The cookies arrive with 803.
    public struct QRCheck: NetEaseEndpoint {
        public var key: String
        public init(key: String) { self.key = key }
        public var path: String { "/api/login/qrcode/client/login" }
        public var parameters: [String: JSONValue] { ["key": .string(key), "type": 1, "noCheckToken": true] }
        public var acceptedCodes: Set<Int> { [800, 801, 802, 803] }

        public enum State: Int, Sendable, Equatable {
            case expired = 800
            case waitingForScan = 801
            case waitingForConfirmation = 802
            case authorized = 803
        }

        public struct Response: Decodable, Sendable, Equatable {
            public var state: State
            public var message: String?
            /// Shown once scanned (802).
            public var nickname: String?
            public var avatarURL: String?

            public init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: AnyKey.self)
                guard let code = c.lenientInt(AnyKey("code")), let state = State(rawValue: Int(code)) else {
                    throw DecodingError.dataCorrupted(.init(codingPath: [AnyKey("code")], debugDescription: "not a QR state"))
                }
                self.state = state
                message = c.lenientString(AnyKey("message"))
                nickname = c.lenientString(AnyKey("nickname"))
                avatarURL = c.lenientString(AnyKey("avatarUrl"))
            }
        }
    }

    /// The text to render as the QR code of a key. `chainId` is needed since 2025, or NetEase's risk control
    /// fails the login (PYNCM `GetLoginQRCodeUrl`).
    public static func qrCodeText(key: String, deviceID: String, milliseconds: Int64) -> String {
        "https://music.163.com/login?codekey=\(key)&chainId=v1_\(deviceID)_web_login_\(milliseconds)"
    }

    /// `login_status`: who the cookies belong to; `account` nil means logged out.
    public struct Status: NetEaseEndpoint {
        public init() {}
        public var path: String { "/api/w/nuser/account/get" }
        public typealias Response = AccountResponse
    }

    /// `login_refresh`: fresh cookies for a password login (QR cookies get 400, NCM #1421).
    public struct Refresh: NetEaseEndpoint {
        public init() {}
        public var path: String { "/api/login/token/refresh" }
        public typealias Response = NetEaseEmptyResponse
    }

    /// `logout`.
    public struct Logout: NetEaseEndpoint {
        public init() {}
        public var path: String { "/api/logout" }
        public typealias Response = NetEaseEmptyResponse
    }

    /// `register_anonimous` (NetEase's spelling): a guest token, `MUSIC_A`, arrives as a cookie.
    public struct RegisterAnonymous: NetEaseEndpoint {
        public var deviceID: String
        public init(deviceID: String) { self.deviceID = deviceID }
        public var path: String { "/api/register/anonimous" }
        public var parameters: [String: JSONValue] {
            ["username": .string(NetEaseCrypto.anonymousUsername(deviceID: deviceID))]
        }

        public struct Response: Decodable, Sendable, Equatable {
            public var userID: Int64?
            public init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: AnyKey.self)
                userID = c.lenientInt(AnyKey("userId"))
            }
        }
    }

    /// `captcha_sent` (`/api/sms/captcha/sent`): NetEase texts a login code to the phone.
    public struct SMSCode: NetEaseEndpoint {
        public var phone: String
        public var countryCode: String
        public init(phone: String, countryCode: String = "86") {
            self.phone = phone
            self.countryCode = countryCode
        }
        public var path: String { "/api/sms/captcha/sent" }
        public var parameters: [String: JSONValue] { ["cellphone": .string(phone), "ctcode": .string(countryCode)] }
        public typealias Response = NetEaseEmptyResponse
    }

    /// `login_cellphone` (ENH's `/api/w/login/cellphone`): with a password (sent as its MD5) or an SMS code.
    public struct Cellphone: NetEaseEndpoint {
        public enum Secret: Sendable, Equatable {
            case password(String)
            case smsCode(String)
        }

        public var phone: String
        public var countryCode: String
        public var secret: Secret

        public init(phone: String, countryCode: String = "86", secret: Secret) {
            self.phone = phone
            self.countryCode = countryCode
            self.secret = secret
        }

        public var path: String { "/api/w/login/cellphone" }
        public var parameters: [String: JSONValue] {
            var parameters: [String: JSONValue] = [
                "phone": .string(phone), "countrycode": .string(countryCode), "remember": "true", "type": "1",
                "https": "true",
            ]
            switch secret {
            case .password(let password):
                parameters["password"] = .string(NetEaseCrypto.md5Hex(Array(password.utf8)))
            case .smsCode(let code):
                parameters["captcha"] = .string(code)
            }
            return parameters
        }
        public typealias Response = AccountResponse
    }
}

/// `account` and `profile` of a login or account call; both nil when logged out.
public struct AccountResponse: Decodable, Sendable, Equatable {
    public var account: Account?
    public var profile: NetEaseUser?

    public struct Account: Decodable, Sendable, Equatable {
        public var id: Int64
        public var userName: String?
        public var vipType: Int?
        /// A guest account from `register_anonimous`.
        public var anonymous: Bool

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: AnyKey.self)
            id = c.lenientInt(AnyKey("id")) ?? 0
            userName = c.lenientString(AnyKey("userName"))
            vipType = c.lenientInt(AnyKey("vipType")).map(Int.init)
            anonymous = c.lenientBool(AnyKey("anonimousUser")) ?? false
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self).unwrappingData(unless: ["account", "profile"])
        account = c.lenient(Account.self, AnyKey("account"))
        profile = c.lenient(NetEaseUser.self, AnyKey("profile"))
    }

    /// Logged in with a real account (not logged out, not a guest).
    public var isLoggedIn: Bool { account.map { !$0.anonymous } ?? false && profile != nil }
}
