
optional2	日本語2🙂