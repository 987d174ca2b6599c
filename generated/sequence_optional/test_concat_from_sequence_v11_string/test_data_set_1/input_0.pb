
sequence2🙂 ümlaut