
erased2	日本語2a b2🙂 ümlaut