/// The `netease { … }` block. Every field has a default so NoSignal runs in guest mode with no block at all.
public struct NetEaseSettings: Sendable, Equatable {
    /// The `song_url_v1` levels, lowest first. The account may get less than it
    /// asks for; the client falls back to the best level granted.
    public static let qualityLevels = ["standard", "higher", "exhigh", "lossless", "hires", "jyeffect", "sky", "jymaster"]

    /// `api_url`: where to send API requests instead of NetEase's own hosts (a proxy, or the fake server in
    /// tests). nil means NetEase's hosts.
    public var apiURL: String?
    /// `eapi_url`: the same for the eapi host (`interface.music.163.com`); nil means NetEase's.
    public var eapiURL: String?
    /// `weapi_public_key`: a PEM file with the RSA public key weapi encrypts with, for a test server that holds
    /// the private half; nil means NetEase's own key.
    public var weapiPublicKeyFile: String?
    /// `real_ip`: sent as `X-Real-IP`; a mainland address avoids `-460 Cheating` outside China.
    public var realIP: String?
    /// `quality`: one of `qualityLevels`. 320 kbit/s by default, what NetEase's own apps default to.
    public var quality: String
    /// `cookie_file`: where the login cookies are kept (mode 0600). Default `<data_directory>/netease-cookies`.
    public var cookieFile: String
    /// `search_online`: whether `search` (and `searchadd`, `searchaddpl`) also asks NetEase, not only the local
    /// database; `find` matches exactly, so it never does.
    public var searchOnline: Bool
    /// `directory_name`: the virtual directory at the root of `lsinfo`.
    public var directoryName: String
    /// `timeout`: seconds before a NetEase request gives up, so a client never hangs longer than this.
    public var timeout: Int
    /// `sync_interval`: seconds between background syncs of the user's collection into the database; 0 turns
    /// the periodic sync off (`update NetEase` still works).
    public var syncInterval: Int
    /// `scrobble`: whether played songs are reported to NetEase (its "recently played" and listening ranking).
    public var scrobble: Bool
    /// `trial_tracks`: what to do with a song the account only gets a trial clip of (VIP songs without VIP):
    /// `play` the clip (what NetEase's apps do; `status` shows the clip's length) or `skip` it like an
    /// unavailable song.
    public var trialTracks: TrialPolicy = .play
    /// `enabled`: "no" leaves NetEase out entirely (no `NetEase` directory, no requests), as MPD's plugin blocks
    /// take `enabled "no"`; a plain local music server then.
    public var enabled: Bool = true

    public enum TrialPolicy: String, Sendable, Equatable, CaseIterable {
        case play, skip
    }

    public static let defaultQuality = "exhigh"
    public static let defaultDirectoryName = "NetEase"
    public static let defaultTimeout = 15
    /// Hourly: the collection changes slowly, and NetEase rate-limits bursts.
    public static let defaultSyncInterval = 3600
    /// Relative to the data directory.
    public static let defaultCookieFileName = "netease-cookies"

    public init(apiURL: String? = nil, realIP: String? = nil, quality: String = NetEaseSettings.defaultQuality,
                cookieFile: String, searchOnline: Bool = true,
                directoryName: String = NetEaseSettings.defaultDirectoryName,
                timeout: Int = NetEaseSettings.defaultTimeout, eapiURL: String? = nil,
                weapiPublicKeyFile: String? = nil, syncInterval: Int = NetEaseSettings.defaultSyncInterval,
                scrobble: Bool = true) {
        self.apiURL = apiURL
        self.eapiURL = eapiURL
        self.weapiPublicKeyFile = weapiPublicKeyFile
        self.syncInterval = syncInterval
        self.scrobble = scrobble
        self.realIP = realIP
        self.quality = quality
        self.cookieFile = cookieFile
        self.searchOnline = searchOnline
        self.directoryName = directoryName
        self.timeout = timeout
    }

    /// The defaults for a given data directory (which holds the cookie file).
    public static func defaults(dataDirectory: String) -> NetEaseSettings {
        NetEaseSettings(cookieFile: PathExpander.join(dataDirectory, defaultCookieFileName))
    }
}
