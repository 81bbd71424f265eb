// Layer kinds and widths of a model for `inspect`; see modelsummary.h.

#include "app/cli/modelsummary.h"

#include <cctype>

namespace llamafit {

LayerCounts countLayers(const ModelInfo& model) {
    LayerCounts counts;
    for (const LayerInfo& layer : model.layers) {
        if (layer.nextn) {
            ++counts.nextn;
            continue;
        }
        const bool attends = layer.attention != AttentionKind::None;
        if (attends && !layer.hasKv) {
            ++counts.sharedKv;
        }
        if (attends && layer.recurrent) {
            ++counts.hybrid;
        } else if (layer.recurrent) {
            ++counts.recurrent;
        } else if (layer.attention == AttentionKind::Full) {
            ++counts.full;
        } else if (layer.attention == AttentionKind::SlidingWindow) {
            ++counts.swa;
        } else if (layer.attention == AttentionKind::Chunked) {
            ++counts.chunked;
        } else {
            ++counts.none;
        }
    }
    return counts;
}

char layerSymbol(const LayerInfo& layer) {
    if (layer.nextn) {
        return 'N';
    }
    const bool attends = layer.attention != AttentionKind::None;
    char symbol = '-';
    if (attends && layer.recurrent) {
        symbol = 'B';
    } else if (layer.recurrent) {
        symbol = 'R';
    } else if (layer.attention == AttentionKind::Full) {
        symbol = 'F';
    } else if (layer.attention == AttentionKind::SlidingWindow) {
        symbol = 'S';
    } else if (layer.attention == AttentionKind::Chunked) {
        symbol = 'C';
    }
    return attends && !layer.hasKv ? static_cast<char>(std::tolower(static_cast<unsigned char>(symbol)))
                                   : symbol;
}

std::string layerMap(const ModelInfo& model) {
    std::string map;
    for (std::size_t i = 0; i < model.layers.size(); ++i) {
        if (i > 0 && i % 8 == 0) {
            map += ' '; // groups of 8 make layer indexes countable by eye
        }
        map += layerSymbol(model.layers[i]);
    }
    return map;
}

std::string_view attentionKindName(AttentionKind kind) {
    switch (kind) {
    case AttentionKind::Full:
        return "full";
    case AttentionKind::SlidingWindow:
        return "swa";
    case AttentionKind::Chunked:
        return "chunked";
    case AttentionKind::None:
        break;
    }
    return "none";
}

LayerWidths layerWidths(const ModelInfo& model) {
    LayerWidths widths;
    for (const LayerInfo& layer : model.layers) {
        if (layer.nextn) {
            continue;
        }
        if (layer.hasKv) {
            widths.headCountKv.insert(layer.headCountKv);
            widths.keyHeadDim.insert(layer.keyHeadDim);
            widths.valueHeadDim.insert(layer.valueHeadDim);
        }
        if (layer.recurrent) {
            widths.recurrentConvWidth.insert(layer.recurrentConvWidth);
            widths.recurrentStateWidth.insert(layer.recurrentStateWidth);
        }
    }
    return widths;
}

} // namespace llamafit
