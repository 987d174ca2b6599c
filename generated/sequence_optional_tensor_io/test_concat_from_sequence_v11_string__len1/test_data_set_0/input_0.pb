2🙂 ümlautB
sequence_0