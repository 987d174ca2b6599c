
shorter