/// An audio output as the protocol shows it (`outputs`): what it is, whether it is enabled, and the attributes
/// `outputset` changes. The state says what the output should do; the audio side plays through it.
public struct Output: Equatable, Sendable {
    public struct Attribute: Equatable, Sendable {
        public var name: String
        public var value: String

        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    /// `name` in the configuration; what `moveoutput` names.
    public var name: String
    /// `plugin`: `alsa`, `null`, `fifo`, `pipe`, `httpd`.
    public var plugin: String
    public var enabled: Bool
    /// `mixer_type "software"`: the partition that holds this output has a volume.
    public var softwareMixer: Bool
    /// Any mixer, software or hardware: switching the output on or off is a `mixer` event too.
    public var hasMixer: Bool
    /// The attributes the output declares; `outputset` changes only these.
    public var attributes: [Attribute]

    public init(name: String, plugin: String, enabled: Bool, softwareMixer: Bool = false, hasMixer: Bool = false,
                attributes: [Attribute] = []) {
        self.name = name
        self.plugin = plugin
        self.enabled = enabled
        self.softwareMixer = softwareMixer
        self.hasMixer = hasMixer || softwareMixer
        self.attributes = attributes
    }
}

/// A partition's entry for an output, in `outputid` order: the output, or the dummy it leaves where it was when it
/// moves to another partition (MPD keeps the slot, so `outputid`s stay put; `outputs` shows plugin `dummy`).
public enum OutputSlot: Equatable, Sendable {
    case live(Output)
    case dummy(name: String)

    public var name: String {
        switch self {
        case .live(let output): output.name
        case .dummy(let name): name
        }
    }

    /// The output, nil for a dummy.
    public var output: Output? {
        guard case .live(let output) = self else { return nil }
        return output
    }
}
