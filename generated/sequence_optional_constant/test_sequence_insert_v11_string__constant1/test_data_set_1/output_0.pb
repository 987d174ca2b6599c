
inserted2🙂 ümlaut