// placeholder: written in the compare-mode slice
