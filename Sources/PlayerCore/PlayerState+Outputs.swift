extension PlayerState {
    /// `moveoutput` (`PartitionCommands.cxx`): the output leaves a dummy where it was and joins `partition`, back
    /// into its dummy's slot if it was there before, keeping whether it is enabled. Every partition's volume then
    /// follows its software mixers. Naming an output already in `partition` changes nothing.
    mutating func moveOutput(_ name: String, to partition: String) throws(PlayerError) -> [Effect] {
        let destination = try index(of: partition)
        if partitions[destination].outputs.contains(where: { $0.output?.name == name }) { return [] }
        guard let source = partitions.firstIndex(where: { p in p.outputs.contains { $0.output?.name == name } }),
              let slot = partitions[source].outputs.firstIndex(where: { $0.output?.name == name }),
              let output = partitions[source].outputs[slot].output
        else { throw .noSuchOutput("No such output") }
        partitions[source].outputs[slot] = .dummy(name: name)
        if let dummy = partitions[destination].outputs.firstIndex(where: { $0 == .dummy(name: name) }) {
            partitions[destination].outputs[dummy] = .live(output)
        } else {
            partitions[destination].outputs.append(.live(output))
        }
        for index in partitions.indices {
            let mixer = partitions[index].outputs.contains { $0.output?.softwareMixer ?? false }
            if !mixer {
                partitions[index].volume = nil
            } else if partitions[index].volume == nil {
                partitions[index].volume = 100
            }
        }
        return [.moveOutput(name: name, from: partitions[source].name, to: partition)]
    }

    /// A failed output is disabled where it is; the audio side has stopped it already.
    mutating func outputFailed(_ name: String) {
        for p in partitions.indices {
            for slot in partitions[p].outputs.indices {
                guard case .live(var output) = partitions[p].outputs[slot], output.name == name else { continue }
                output.enabled = false
                partitions[p].outputs[slot] = .live(output)
            }
        }
    }
}

extension PartitionState {
    /// `enableoutput`/`disableoutput`/`toggleoutput` (MPD's `audio_output_enable_index` and its siblings):
    /// setting what is set changes nothing and announces nothing; a change is an `output` event, and a `mixer`
    /// event when the output has a mixer (for a toggle only when it turns the output off).
    mutating func setOutput(_ id: Int, enabled on: Bool?, partition: String) throws(PlayerError) -> [Effect] {
        guard outputs.indices.contains(id), case .live(var output) = outputs[id] else {
            throw .noSuchOutput("No such audio output")
        }
        let enable = on ?? !output.enabled
        guard enable != output.enabled else { return [] }
        output.enabled = enable
        outputs[id] = .live(output)
        var effects: [Effect] = [.enableOutput(partition: partition, name: output.name, enable)]
        if output.hasMixer, on != nil || !enable { effects.append(.announce(Change(.mixer, partition: partition))) }
        return effects
    }

    /// `outputset`: only attributes the output declares (MPD's `OutputAttributes`) change.
    mutating func setOutputAttribute(_ id: Int, name: String, value: String) throws(PlayerError) {
        guard outputs.indices.contains(id) else { throw .noSuchOutput("No such audio output") }
        // `IsValidAttributeName`: ASCII letters, digits and `_`, checked once the output is known to exist.
        guard !name.isEmpty, name.utf8.allSatisfy({ $0 == 0x5F || (0x30...0x39).contains($0)
            || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) })
        else { throw .badAttributeValue("Illegal attribute name") }
        guard case .live(var output) = outputs[id] else { throw .noSuchOutput("No such audio output") }
        guard let attribute = output.attributes.firstIndex(where: { $0.name == name }) else {
            throw .unsupportedAttribute
        }
        // ALSA's `dop` is a switch (`AlsaOutput::SetAttribute`).
        if name == "dop", value != "0", value != "1" { throw .badAttributeValue("Bad 'dop' value") }
        output.attributes[attribute].value = value
        outputs[id] = .live(output)
    }
}
