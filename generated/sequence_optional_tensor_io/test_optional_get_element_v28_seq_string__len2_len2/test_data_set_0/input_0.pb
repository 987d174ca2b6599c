2	日本語2🙂B
sequence_0