import NetEaseLibrary
import NoSignalConfig

extension NetEaseOptions {
    /// The NetEase source's options from the configuration's `netease { … }` block.
    public init(_ settings: NetEaseSettings) {
        let levels = NetEaseSettings.qualityLevels
        let top = levels.firstIndex(of: settings.quality) ?? levels.firstIndex(of: NetEaseSettings.defaultQuality)!
        self.init(apiURL: settings.apiURL, eapiURL: settings.eapiURL, weapiPublicKeyFile: settings.weapiPublicKeyFile,
                  realIP: settings.realIP, qualityLadder: Array(levels[...top]), cookieFile: settings.cookieFile,
                  searchOnline: settings.searchOnline, directoryName: settings.directoryName,
                  timeout: settings.timeout, playsTrialClips: settings.trialTracks == .play)
    }
}
