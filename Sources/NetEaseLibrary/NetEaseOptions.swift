/// What the NetEase source takes from the configuration's `netease { … }` block, as a plain value: the composition
/// root fills it from the parsed configuration (`NoSignalApp`), tests write it directly. The options mean what the
/// configuration's documentation says (`conf/nosignal.conf`); only what this module reads is here.
public struct NetEaseOptions: Sendable, Equatable {
    /// Where API requests go instead of NetEase's hosts (a proxy, the fake server); nil: NetEase's.
    public var apiURL: String?
    /// The same for the eapi host; nil: NetEase's.
    public var eapiURL: String?
    /// A PEM file with the RSA public key weapi encrypts with; nil: NetEase's own key.
    public var weapiPublicKeyFile: String?
    /// Sent as `X-Real-IP`.
    public var realIP: String?
    /// The `song_url_v1` levels a stream is asked at, lowest first, up to the configured quality: the last is
    /// asked first, then each below it while NetEase grants no URL.
    public var qualityLadder: [String]
    /// Where the login cookies are kept (mode 0600).
    public var cookieFile: String
    /// Whether `search` also asks NetEase.
    public var searchOnline: Bool
    /// The virtual directory at the root of `lsinfo`.
    public var directoryName: String
    /// Seconds before a request gives up.
    public var timeout: Int
    /// Whether a song the account gets only a trial clip of plays the clip (else it is skipped as unavailable).
    public var playsTrialClips: Bool

    public init(apiURL: String? = nil, eapiURL: String? = nil, weapiPublicKeyFile: String? = nil,
                realIP: String? = nil, qualityLadder: [String], cookieFile: String, searchOnline: Bool = true,
                directoryName: String = "NetEase", timeout: Int = 15, playsTrialClips: Bool = true) {
        self.apiURL = apiURL
        self.eapiURL = eapiURL
        self.weapiPublicKeyFile = weapiPublicKeyFile
        self.realIP = realIP
        self.qualityLadder = qualityLadder
        self.cookieFile = cookieFile
        self.searchOnline = searchOnline
        self.directoryName = directoryName
        self.timeout = timeout
        self.playsTrialClips = playsTrialClips
    }

    /// The quality streams are asked at first.
    public var quality: String { qualityLadder.last ?? "standard" }
}
